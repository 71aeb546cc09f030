/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* ini.h - a small INI lexer: section headers and `key = value` lines, each
 * with its line number, and every syntax error with its line number.
 *
 * Our own rather than Debian's libinih (r55): inih does not pass line
 * numbers to its handler, so "file:line:" errors about values are out of
 * reach, and it truncates lines longer than its buffer and goes on with
 * the cut value instead of refusing the line.
 *
 * The syntax (docs/rules.md describes it for users):
 * - `[NAME]`: a section header; NAME is trimmed.
 * - `key = value`: whitespace around the key and the value is trimmed.
 *   The value may be double-quoted ("...", with \" and \\ as the only
 *   escapes) to keep a '#', a ';' or leading and trailing spaces.
 * - Comments: a line whose first non-blank character is '#' or ';', and
 *   in a header or an unquoted value a '#' or ';' that starts the value
 *   or follows a blank, up to the end of the line.
 * - Blanks are spaces and tabs. Lines end in LF or CRLF; a UTF-8 byte
 *   order mark at the start is skipped.
 * - Limits: the text at most INI_MAX_FILE bytes, a line at most
 *   INI_MAX_LINE bytes (without its line end), valid UTF-8 without
 *   control characters other than tab (so no NUL).
 */
#ifndef TRAPD_INI_H
#define TRAPD_INI_H

#include <stddef.h>

#define INI_MAX_FILE (1024 * 1024)
#define INI_MAX_LINE 4096

/* What the lexer found. Each callback returns 0 to go on or a negative
 * errno (-ENOMEM, say) to stop the lexer, which then returns it. The
 * strings are only valid during the call. */
struct ini_handler {
	/* a `[NAME]` header on @line; @name is not empty. After a header line
	 * with a syntax error (reported first) @name is NULL: the keys that
	 * follow belong to a section nobody can name. */
	int (*section)(void *ctx, int line, const char *name);
	/* a `key = value` line; @key is not empty, @value may be */
	int (*key)(void *ctx, int line, const char *key, const char *value);
	/* a syntax error on @line (0: about the whole text), e.g. "expected
	 * 'key = value', '[section]' or a comment"; the line is skipped */
	int (*error)(void *ctx, int line, const char *msg);
};

/* ini__parse - lex @len bytes of @text (no NUL terminator needed), calling
 * @h for each header, key and syntax error in line order. Returns 0 when
 * there was no syntax error, -EINVAL when @h->error was called at least
 * once (lexing goes on to the end), or the first negative value a
 * callback returned. */
int ini__parse(const char *text, size_t len, const struct ini_handler *h, void *ctx);

#endif
