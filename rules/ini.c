// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* ini.c - the INI lexer of the rules file (ini.h describes the syntax). */
#include "rules/ini.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MSG_LEN 160

/* One line being lexed: a NUL-terminated copy, and where a value is
 * unquoted into. */
struct ini_line {
	char text[INI_MAX_LINE + 1];
	char value[INI_MAX_LINE + 1];
	int no;
};

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static char *skip_blanks(char *s)
{
	while (is_blank(*s))
		s++;
	return s;
}

/* trim_end - cut blanks off the end of @s (which starts at @start). */
static void trim_end(char *start, char *s)
{
	while (s > start && is_blank(s[-1]))
		s--;
	*s = '\0';
}

/* report - pass a syntax error on. Returns 1 (the line was bad) or the
 * callback's negative errno. */
static int report(const struct ini_handler *h, void *ctx, int line, const char *msg)
{
	int err = h->error(ctx, line, msg);

	return err ? err : 1;
}

/* utf8_len - the length of the valid UTF-8 sequence at @s (at most @n
 * bytes), or 0 if it is not valid: no overlong forms, no surrogates,
 * nothing past U+10FFFF. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* check_text - whether the @n bytes at @s are text we lex: valid UTF-8,
 * no control characters but tab. Fills @msg when not. */
static int check_text(const char *s, size_t n, char *msg, size_t msglen)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, len;

	while (i < n) {
		if (u[i] == 0) {
			snprintf(msg, msglen, "NUL byte at column %zu; a rules file is text",
				 i + 1);
			return -EINVAL;
		}
		if ((u[i] < 0x20 && u[i] != '\t') || u[i] == 0x7f) {
			snprintf(msg, msglen,
				 "control character 0x%02x at column %zu; only tab is allowed",
				 u[i], i + 1);
			return -EINVAL;
		}
		len = utf8_len(u + i, n - i);
		if (!len) {
			snprintf(msg, msglen, "not valid UTF-8 at column %zu", i + 1);
			return -EINVAL;
		}
		i += len;
	}
	return 0;
}

/* end_of_line - whether @s holds only blanks and maybe a comment. */
static bool end_of_line(char *s)
{
	s = skip_blanks(s);
	return *s == '\0' || *s == '#' || *s == ';';
}

/* lex_header - a `[NAME]` line, @s at its '['. */
static int lex_header(const struct ini_handler *h, void *ctx, struct ini_line *l, char *s)
{
	char *name = skip_blanks(s + 1), *close = strchr(name, ']');
	const char *msg = NULL;
	int err;

	if (!close) {
		msg = "expected ']' to end the section header";
	} else if (!end_of_line(close + 1)) {
		msg = "unexpected text after ']'; expected a comment or the end of the line";
	} else {
		trim_end(name, close);
		if (!*name)
			msg = "expected a section name between '[' and ']'";
	}
	if (!msg)
		return h->section(ctx, l->no, name);
	err = report(h, ctx, l->no, msg);
	if (err < 0)
		return err;
	err = h->section(ctx, l->no, NULL);
	return err < 0 ? err : 1;
}

/* unquote - the quoted value starting at the '"' at @s, into @l->value.
 * Returns 0, or report()'s value. */
static int unquote(const struct ini_handler *h, void *ctx, struct ini_line *l, char *s)
{
	char *out = l->value;

	for (s++; *s && *s != '"'; s++) {
		if (*s == '\\') {
			s++;
			if (!*s)
				break;
			if (*s != '"' && *s != '\\')
				return report(h, ctx, l->no,
					      "in a quoted value '\\' must be followed by '\"' or "
					      "'\\'");
		}
		*out++ = *s;
	}
	if (*s != '"')
		return report(h, ctx, l->no, "quoted value without its closing '\"'");
	if (!end_of_line(s + 1))
		return report(h, ctx, l->no,
			      "unexpected text after the closing '\"'; expected a comment or the "
			      "end of the line");
	*out = '\0';
	return 0;
}

/* unquoted - the plain value at @s (blanks skipped), cut at a comment. */
static void unquoted(struct ini_line *l, char *s)
{
	char *start = s;

	for (; *s; s++)
		if ((*s == '#' || *s == ';') && (s == start || is_blank(s[-1])))
			break;
	trim_end(start, s);
	memcpy(l->value, start, strlen(start) + 1);
}

/* lex_key - a `key = value` line, @s at the key. */
static int lex_key(const struct ini_handler *h, void *ctx, struct ini_line *l, char *s)
{
	char *eq = strchr(s, '='), *v;
	int err;

	if (!eq)
		return report(h, ctx, l->no, "expected 'key = value', '[section]' or a comment");
	trim_end(s, eq);
	if (!*s)
		return report(h, ctx, l->no, "expected a key before '='");
	v = skip_blanks(eq + 1);
	if (*v == '"') {
		err = unquote(h, ctx, l, v);
		if (err)
			return err;
	} else {
		unquoted(l, v);
	}
	return h->key(ctx, l->no, s, l->value);
}

/* lex_line - one line of @n bytes (line end removed). Returns 0, 1 after
 * a syntax error, or a callback's negative errno. */
static int lex_line(const struct ini_handler *h, void *ctx, struct ini_line *l, const char *s,
		    size_t n)
{
	char msg[MSG_LEN], *t;

	if (n > INI_MAX_LINE) {
		snprintf(msg, sizeof(msg), "line longer than %d bytes", INI_MAX_LINE);
		return report(h, ctx, l->no, msg);
	}
	if (check_text(s, n, msg, sizeof(msg)))
		return report(h, ctx, l->no, msg);
	memcpy(l->text, s, n);
	l->text[n] = '\0';
	t = skip_blanks(l->text);
	if (*t == '\0' || *t == '#' || *t == ';')
		return 0;
	if (*t == '[')
		return lex_header(h, ctx, l, t);
	return lex_key(h, ctx, l, t);
}

int ini__parse(const char *text, size_t len, const struct ini_handler *h, void *ctx)
{
	struct ini_line *l = NULL; /* 8 KiB: kept off the stack */
	size_t pos = 0, n;
	const char *s, *nl;
	bool bad = false;
	int err = 0;

	if (len > INI_MAX_FILE) {
		err = report(h, ctx, 0, "larger than 1 MiB; a rules file is smaller");
		return err < 0 ? err : -EINVAL;
	}
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		pos = 3;
	while (pos < len) {
		s = text + pos;
		nl = memchr(s, '\n', len - pos);
		n = nl ? (size_t)(nl - s) : len - pos;
		pos += n + (nl ? 1 : 0);
		l->no++;
		if (n && s[n - 1] == '\r')
			n--;
		err = lex_line(h, ctx, l, s, n);
		if (err < 0)
			goto cleanup;
		bad |= err > 0;
	}
	err = bad ? -EINVAL : 0;
cleanup:
	free(l);
	return err;
}
