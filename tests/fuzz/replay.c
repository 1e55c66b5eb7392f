/* SPDX-License-Identifier: MIT */
/*
 * Replays a corpus through one fuzz target under the ordinary build: every file
 * named, or every file of every directory named, is parsed once. A crash, a
 * sanitizer report or a hang fails the test; the count parsed is printed.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf;
	long len;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0) {
		fprintf(stderr, "%s: cannot read\n", path);
		return -1;
	}
	rewind(f);
	buf = malloc((size_t)len + 1);
	if (buf == NULL || fread(buf, 1, (size_t)len, f) != (size_t)len) {
		fprintf(stderr, "%s: cannot read\n", path);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)len);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	size_t n = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;
		struct dirent *d;
		DIR *dir;

		if (stat(argv[i], &st) == 0 && !S_ISDIR(st.st_mode)) {
			if (replay_file(argv[i]) < 0)
				return 1;
			n++;
			continue;
		}
		dir = opendir(argv[i]);
		if (dir == NULL) {
			fprintf(stderr, "%s: cannot open\n", argv[i]);
			return 1;
		}
		while ((d = readdir(dir)) != NULL) {
			char path[4096];

			if (d->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i], d->d_name);
			if (replay_file(path) < 0)
				return 1;
			n++;
		}
		closedir(dir);
	}
	printf("replayed %zu inputs\n", n);
	return n > 0 ? 0 : 1;
}
