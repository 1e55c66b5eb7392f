/* SPDX-License-Identifier: MIT */
/*
 * File operations: what a part of a file workload does on its stream's file set, beside
 * (or instead of) reads and writes at offsets. The same numbering as the wire's FileOp.
 */
#ifndef IOCURVE_FILEOP_H
#define IOCURVE_FILEOP_H

#include <stdbool.h>

enum fileop {
	FILEOP_NONE = 0,   /* a data operation at an offset (rw:) */
	FILEOP_CREATE,     /* a new file: open O_CREAT|O_EXCL, close */
	FILEOP_OPEN,       /* open and close a file */
	FILEOP_STAT,       /* statx */
	FILEOP_ACCESS,     /* access(R_OK) */
	FILEOP_SETATTR,    /* chmod */
	FILEOP_READDIR,    /* a directory listed whole */
	FILEOP_MKDIR,      /* a new directory */
	FILEOP_RMDIR,      /* an empty directory removed */
	FILEOP_UNLINK,     /* a file removed */
	FILEOP_RENAME,     /* a file renamed within its directory */
	FILEOP_READ_FILE,  /* open, read it whole, close */
	FILEOP_WRITE_FILE, /* open, write it whole, close */
};
#define FILEOP_COUNT 13

/* "create", ..., "read-file", "write-file"; "data" for FILEOP_NONE. */
const char *fileop_name(enum fileop op);
/* 0 and *op, or -1 for a name that is not a kind (FILEOP_NONE is not one). */
int fileop_parse(const char *name, enum fileop *op);
/* The kinds' names, NULL-terminated (for "did you mean"). */
extern const char *const fileop_names[];

/* It changes the file set (a create, a write, a removal): the target must allow writes. */
static inline bool fileop_modifies(enum fileop op)
{
	return op == FILEOP_CREATE || op == FILEOP_SETATTR || op == FILEOP_MKDIR ||
	       op == FILEOP_RMDIR || op == FILEOP_UNLINK || op == FILEOP_RENAME ||
	       op == FILEOP_WRITE_FILE;
}

/* It moves a file's bytes (whole-file reads and writes). */
static inline bool fileop_moves_data(enum fileop op)
{
	return op == FILEOP_READ_FILE || op == FILEOP_WRITE_FILE;
}

#endif
