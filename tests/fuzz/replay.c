/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Runs a fuzz harness over files and folders of inputs without libFuzzer:
 * with gcc, or any build without the `fuzz` option, the committed corpus
 * (seeds and the reproducers of fixed crashes) is a regression test.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return -1;
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (!buf) {
            fclose(f);
            return -1;
        }
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        cap *= 2;
        uint8_t *grown = realloc(buf, cap);
        if (!grown)
            free(buf);
        buf = grown;
    }
    fclose(f);
    /* An exact-size copy, so that a harness reading past the end is caught. */
    uint8_t *exact = malloc(n ? n : 1);
    if (!exact) {
        free(buf);
        return -1;
    }
    memcpy(exact, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

static int cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    int files = 0, errors = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: %s does not exist\n", argv[i]);
            errors++;
            continue;
        }
        if (!S_ISDIR(st.st_mode)) {
            errors += run_file(argv[i]) < 0;
            files++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        struct dirent *e;
        char **names = NULL;
        size_t n = 0;
        while (d && (e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            char **grown = realloc(names, (n + 1) * sizeof(*names));
            if (!grown)
                break;
            names = grown;
            size_t len = strlen(argv[i]) + strlen(e->d_name) + 2;
            names[n] = malloc(len);
            if (!names[n])
                break;
            snprintf(names[n], len, "%s/%s", argv[i], e->d_name);
            n++;
        }
        if (d)
            closedir(d);
        qsort(names, n, sizeof(*names), cmp);
        for (size_t k = 0; k < n; k++) {
            errors += run_file(names[k]) < 0;
            files++;
            free(names[k]);
        }
        free(names);
    }
    printf("replayed %d inputs, %d errors\n", files, errors);
    return errors || files == 0 ? 1 : 0;
}
