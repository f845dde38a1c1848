// SPDX-License-Identifier: GPL-2.0-only
/* Option tables: getopt arrays, --help text and completion values from one declaration (opt.h). */
#include <string.h>

#include "jobmix/opt.h"

#define OPT_COL 25

const struct opt *opt_next(const struct opt_cmd *c, struct opt_iter *it)
{
	while (it->i < c->rows.n) {
		const struct opt *row = &c->rows.opt[it->i];
		if (!row->include) {
			it->i++;
			return row;
		}
		while (it->j < row->include->n) {
			const struct opt *o = &row->include->opt[it->j++];
			if (!o->only || (o->only & row->mask))
				return o;
		}
		it->i++;
		it->j = 0;
	}
	return NULL;
}

static bool opt_parsed(const struct opt *o)
{
	return o->arg != OPT_ROW && (o->letter || o->name);
}

int opt_build(struct opt_parser *p, const struct opt_cmd *c)
{
	static const int has_arg[] = {
		[OPT_NONE] = no_argument,
		[OPT_REQUIRED] = required_argument,
		[OPT_OPTIONAL] = optional_argument,
	};
	static const char *const colons[] = { [OPT_NONE] = "", [OPT_REQUIRED] = ":",
					      [OPT_OPTIONAL] = "::" };
	struct opt_iter it = { 0 };
	const struct opt *o;
	size_t nl = 0, ns = 0;
	memset(p, 0, sizeof(*p));
	if (c->getopt_prefix)
		ns = (size_t)snprintf(p->shorts, sizeof(p->shorts), "%s", c->getopt_prefix);
	while ((o = opt_next(c, &it))) {
		if (!opt_parsed(o))
			continue;
		if (nl == OPT_MAX || ns + 4 >= sizeof(p->shorts))
			return -1;
		if (o->name)
			p->longs[nl++] = (struct option){ o->name, has_arg[o->arg], NULL, o->id };
		if (o->letter)
			ns += (size_t)snprintf(p->shorts + ns, sizeof(p->shorts) - ns, "%c%s",
					       o->letter, colons[o->arg]);
	}
	if (!c->no_help) {
		p->longs[nl++] = (struct option){ "help", no_argument, NULL, 'h' };
		snprintf(p->shorts + ns, sizeof(p->shorts) - ns, "h");
	}
	return 0;
}

int opt_getopt(const struct opt_parser *p, int argc, char **argv)
{
	return getopt_long(argc, argv, p->shorts, p->longs, NULL);
}

/* The option column of a row: "-u, --users SPEC", "    --seed N", "PATH". */
static void opt_label(const struct opt_cmd *c, const struct opt *o, char *buf, size_t len)
{
	const char *meta = o->metavar ? o->metavar : "";
	const char *sep = !*meta ? "" : o->arg == OPT_OPTIONAL ? "[" : " ";
	const char *end = *meta && o->arg == OPT_OPTIONAL ? "]" : "";
	if (o->letter && o->name)
		snprintf(buf, len, "-%c, --%s%s%s%s", o->letter, o->name, sep, meta, end);
	else if (o->name)
		snprintf(buf, len, "%s--%s%s%s%s", c->flat ? "" : "    ", o->name, sep, meta, end);
	else if (o->letter)
		snprintf(buf, len, "-%c%s%s%s", o->letter, sep, meta, end);
	else
		snprintf(buf, len, "%s", meta);
}

void opt_usage(FILE *f, const struct opt_cmd *c)
{
	unsigned col = c->col ? c->col : OPT_COL;
	struct opt_iter it = { 0 };
	const struct opt *o;
	fputs(c->synopsis, f);
	while ((o = opt_next(c, &it))) {
		char label[128];
		if (o->hidden)
			continue;
		if (o->section)
			fprintf(f, "%s\n", o->section);
		opt_label(c, o, label, sizeof(label));
		int w = fprintf(f, "  %s", label);
		const char *h = o->help ? o->help : "";
		/* the description at col; one space when the label ends just short of it */
		if (w + 1 > (int)col)
			fprintf(f, "\n%*s", (int)col, "");
		else
			fprintf(f, "%*s", (int)col - w, "");
		for (;;) {
			const char *nl = strchr(h, '\n');
			int n = nl ? (int)(nl - h) : (int)strlen(h);
			fprintf(f, "%.*s\n", n, h);
			if (!nl || !nl[1])
				break;
			h = nl + 1;
			fprintf(f, "%*s", (int)col, "");
		}
	}
	if (c->footer)
		fputs(c->footer, f);
	for (const struct opt_example *e = c->examples; e && e->what; e++)
		fprintf(f, "%s  # %s\n  %s\n", e == c->examples ? "\nexamples:\n" : "", e->what,
			e->line);
}

const struct opt *opt_find(const struct opt_cmd *c, const char *arg)
{
	struct opt_iter it = { 0 };
	const struct opt *o;
	if (arg[0] != '-' || !arg[1])
		return NULL;
	bool lng = arg[1] == '-';
	const char *name = arg + (lng ? 2 : 1);
	size_t n = strcspn(name, "=");
	while ((o = opt_next(c, &it))) {
		if (!opt_parsed(o))
			continue;
		if (lng ? o->name && strlen(o->name) == n && !strncmp(o->name, name, n) :
			  o->letter && o->letter == name[0] && !name[1])
			return o;
	}
	return NULL;
}

const struct opt *opt_by_id(const struct opt_cmd *c, int id)
{
	struct opt_iter it = { 0 };
	const struct opt *o;
	while ((o = opt_next(c, &it)))
		if (opt_parsed(o) && o->id == id)
			return o;
	return NULL;
}

const char *opt_said(const struct opt *o)
{
	static struct {
		const struct opt *o;
		char s[48];
	} said[2 * OPT_MAX];
	size_t i = 0;
	for (; i < sizeof(said) / sizeof(said[0]) && said[i].o; i++)
		if (said[i].o == o)
			return said[i].s;
	if (i == sizeof(said) / sizeof(said[0]))
		return o->name ? o->name : "an option";
	said[i].o = o;
	if (o->letter)
		snprintf(said[i].s, sizeof(said[i].s), "-%c", o->letter);
	else
		snprintf(said[i].s, sizeof(said[i].s), "--%s", o->name ? o->name : "");
	return said[i].s;
}

int opt_values(FILE *f, const struct opt_cmd *c, const char *arg)
{
	const struct opt *o = opt_find(c, arg);
	if (!o || o->arg != OPT_REQUIRED)   /* an optional value is never the next word */
		return -1;
	for (const char *v = o->values ? o->values : ""; *v;) {
		size_t n = strcspn(v, " ");
		if (n)
			fprintf(f, "%.*s\n", (int)n, v);
		v += n + (v[n] == ' ');
	}
	return 0;
}
