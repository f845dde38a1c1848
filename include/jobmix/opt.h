/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A command's options, declared once: one table per command (struct
 * opt_cmd) from which the getopt_long arrays, the --help text (and through
 * it the man page section, display/man.c) and the option values bash
 * completion offers (`jobmix help --values CMD OPTION`) are generated.
 *
 * A row is an option (a short letter, a long name or both), or a line of
 * the help only (OPT_ROW: an argument such as PATH, or an option described
 * again under another heading).  A row may stand for a whole shared table
 * (include): report, compare and plot share their common options that way,
 * each taking the shared rows whose `only` mask has its bit.
 *
 * Help layout, as the commands always printed it: two spaces, the option
 * column ("-u, --users SPEC", long-only options under the long names),
 * the description from column `col` (25 unless said), continuation lines
 * indented to it; a row's `section` heading unindented before it.
 */
#ifndef JOBMIX_OPT_H
#define JOBMIX_OPT_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Ids of options without a short letter start here, past every letter getopt returns. */
#define OPT_LONG_ID 256
/* The most options one command has (its shared tables included). */
#define OPT_MAX 64

enum opt_arg {
	OPT_NONE,           /* a flag */
	OPT_REQUIRED,       /* --opt VALUE, --opt=VALUE, -x VALUE */
	OPT_OPTIONAL,       /* --opt[=VALUE], -x[VALUE] */
	OPT_ROW,            /* a help row only, never parsed */
};

struct opt_list;

struct opt {
	int id;                 /* what getopt_long returns: the letter, or an id >= OPT_LONG_ID */
	char letter;            /* the short option, or 0 */
	const char *name;       /* the long option, or NULL */
	enum opt_arg arg;
	const char *metavar;    /* "N", "KEY=VALUE"; a row without names: the row's label */
	const char *help;       /* one or more lines apart by '\n' */
	const char *section;    /* a heading printed before the row, or NULL */
	const char *key;        /* run: the workload key the option sets, or NULL */
	const char *value;      /* ... and the value a flag sets it to */
	/*
	 * What completion offers for the value, space separated: words, and
	 * @dirs @files @workloads @schedulers @devices (completed by the
	 * script); @list: a comma list whose elements complete alike (the
	 * plain words only as its first).  NULL: nothing to offer.
	 */
	const char *values;
	unsigned only;          /* in a shared table: the includers it is for (0: all) */
	const struct opt_list *include;   /* this row stands for those rows (for mask) */
	unsigned mask;          /* ... taken with this bit */
	bool hidden;            /* parsed, not listed in the help */
};

struct opt_list {
	const struct opt *opt;
	size_t n;
};

#define OPT_LIST(a) { (a), sizeof(a) / sizeof((a)[0]) }

/* A worked example of a command: what it does, and the command line. */
struct opt_example {
	const char *what;       /* "an A/B of two IO schedulers, paired in 3 rounds" */
	const char *line;       /* "jobmix run sched-ab -s mq-deadline,bfq --rounds 3" */
};

struct opt_cmd {
	const char *name;       /* the command, for messages */
	const char *synopsis;   /* the help's lines before the rows ("usage: ..."), '\n' ended */
	const char *footer;     /* ... and after them, or NULL */
	struct opt_list rows;
	unsigned col;           /* the description column; 0: 25 */
	bool flat;              /* long-only options in the first column (no "-x, " room) */
	const char *getopt_prefix;   /* before the short options (":" to see missing arguments) */
	bool no_help;           /* -h and --help are not added */
	/* "examples:" after the footer, and the man page's EXAMPLES; {NULL}-ended, or NULL */
	const struct opt_example *examples;
};

/* The rows in order, shared tables expanded: for (it = {0}; (o = opt_next(c, &it));). */
struct opt_iter {
	size_t i, j;
};
const struct opt *opt_next(const struct opt_cmd *c, struct opt_iter *it);

/* The getopt_long arrays of a command (with -h/--help unless no_help). */
struct opt_parser {
	struct option longs[OPT_MAX + 2];
	char shorts[3 * OPT_MAX + 8];
};
/* 0, or -1 when the table has more than OPT_MAX options (a program error). */
int opt_build(struct opt_parser *p, const struct opt_cmd *c) __attribute__((warn_unused_result));
/* getopt_long over the parser's arrays. */
int opt_getopt(const struct opt_parser *p, int argc, char **argv);

/* The command's --help text. */
void opt_usage(FILE *f, const struct opt_cmd *c);

/* The row of an option as written ("-u", "--users", "--users=5"), or NULL. */
const struct opt *opt_find(const struct opt_cmd *c, const char *arg);
/* The row of the option getopt returned id for, or NULL. */
const struct opt *opt_by_id(const struct opt_cmd *c, int id);

/*
 * How a message names the option: "-m" when it has a letter, else
 * "--seed"; the string lives as long as the program.
 */
const char *opt_said(const struct opt *o);

/*
 * The values of an option (opt_find) one a line, for completion: 0, or -1
 * when there is no such option or it takes no value of its own word (a
 * flag, or an optional value, which must be joined to it).
 */
int opt_values(FILE *f, const struct opt_cmd *c, const char *arg);

#endif
