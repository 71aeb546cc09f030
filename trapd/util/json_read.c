// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* json_read.c - a strict JSON parser into a tree held in one arena.
 *
 * A recursive descent over the text, depth-bounded so a hostile document
 * cannot exhaust the stack. Strings are decoded (escapes, surrogate pairs)
 * and checked to be well-formed UTF-8; numbers keep their literal text and
 * are converted on demand. Every value, string and child array lives in a
 * chain of arena blocks hanging off the root, so json_free is one walk.
 */
#include "trapd/util/json_read.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trapd/util/read_all.h"
#include "trapd/util/utf8.h"

struct json_value {
	enum json_type type;
	bool boolean;
	char *text;		    /* a string (decoded) or a number (as written) */
	size_t n;		    /* string bytes; array elements; object members */
	struct json_value **items;  /* elements or member values, in document order */
	struct json_value **sorted; /* an object's members by key, for json_get */
	char *key;		    /* the member's key, when the parent is an object */
	size_t key_pos;		    /* where that key starts in the text, for errors */
	struct json_value *next;    /* the next sibling, while the parent is parsed */
};

#define ARENA_ALIGN _Alignof(struct json_value)
#define ARENA_MIN_BLOCK 4096
#define ARENA_MAX_BLOCK (1 << 20) /* larger blocks only for larger requests */

struct arena_block {
	struct arena_block *next;
	size_t used, size;
	unsigned char data[]; /* 8-aligned: malloc'd, after three 8-byte fields */
};

/* The root is the first member, so json_free finds the blocks from it. */
struct json_doc {
	struct json_value root;
	struct arena_block *blocks;
};

struct parser {
	const char *s;
	size_t len, pos;
	int depth;
	struct json_doc *doc;
	size_t next_block; /* bytes of the next arena block */
	char *err;
	size_t errlen;
};

/* arena_alloc - @size bytes from the document's arena, or NULL. */
static void *arena_alloc(struct parser *p, size_t size)
{
	struct arena_block *b = p->doc->blocks;
	size_t want = (size + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1), bytes = p->next_block;

	if (want < size || want > SIZE_MAX / 4)
		return NULL;
	if (!b || b->size - b->used < want) {
		while (bytes < want)
			bytes *= 2;
		b = malloc(sizeof(*b) + bytes);
		if (!b)
			return NULL;
		b->next = p->doc->blocks;
		b->used = 0;
		b->size = bytes;
		p->doc->blocks = b;
		if (p->next_block < ARENA_MAX_BLOCK)
			p->next_block *= 2;
	}
	b->used += want;
	return b->data + b->used - want;
}

/* fail - "line L, column C: MESSAGE" about the byte at @pos into the
 * caller's buffer; returns -EINVAL. Columns count UTF-8 characters. */
__attribute__((format(printf, 3, 4))) static int fail(struct parser *p, size_t pos, const char *fmt,
						      ...)
{
	size_t i, line = 1, col = 1;
	char msg[160];
	va_list ap;

	if (!p->err || !p->errlen)
		return -EINVAL;
	for (i = 0; i < pos && i < p->len; i++) {
		if (p->s[i] == '\n') {
			line++;
			col = 1;
		} else if (((unsigned char)p->s[i] & 0xc0) != 0x80) {
			col++;
		}
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(p->err, p->errlen, "line %zu, column %zu: %s", line, col, msg);
	return -EINVAL;
}

/* expected - fail at the current byte: "expected WHAT, found X". */
static int expected(struct parser *p, const char *what)
{
	unsigned char c;

	if (p->pos >= p->len)
		return fail(p, p->pos, "expected %s, found the end of the input", what);
	c = p->s[p->pos];
	if (c >= 0x20 && c < 0x7f)
		return fail(p, p->pos, "expected %s, found '%c'", what, c);
	return fail(p, p->pos, "expected %s, found byte 0x%02x", what, c);
}

static int nomem(struct parser *p)
{
	if (p->err && p->errlen)
		snprintf(p->err, p->errlen, "out of memory");
	return -ENOMEM;
}

/* peek - the current byte, or -1 at the end. */
static int peek(const struct parser *p)
{
	return p->pos < p->len ? (unsigned char)p->s[p->pos] : -1;
}

static void skip_ws(struct parser *p)
{
	int c;

	while ((c = peek(p)) == ' ' || c == '\t' || c == '\n' || c == '\r')
		p->pos++;
}

static int parse_value(struct parser *p, struct json_value *v);

static int parse_literal(struct parser *p, struct json_value *v, const char *word,
			 enum json_type type)
{
	size_t n = strlen(word);

	if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n))
		return fail(p, p->pos, "invalid literal (expected %s)", word);
	p->pos += n;
	v->type = type;
	v->boolean = word[0] == 't';
	return 0;
}

/* digits - the index after the run of digits starting at @i. */
static size_t digits(const struct parser *p, size_t i)
{
	while (i < p->len && p->s[i] >= '0' && p->s[i] <= '9')
		i++;
	return i;
}

static int parse_number(struct parser *p, struct json_value *v)
{
	size_t start = p->pos, i = p->pos, d;

	if (p->s[i] == '-')
		i++;
	d = digits(p, i);
	if (d == i) {
		p->pos = i;
		return expected(p, "a digit after '-'");
	}
	if (p->s[i] == '0' && d > i + 1)
		return fail(p, i, "leading zero in a number");
	i = d;
	if (i < p->len && p->s[i] == '.') {
		p->pos = d = digits(p, i + 1);
		if (d == i + 1)
			return expected(p, "a digit after the decimal point");
		i = d;
	}
	if (i < p->len && (p->s[i] == 'e' || p->s[i] == 'E')) {
		i++;
		if (i < p->len && (p->s[i] == '+' || p->s[i] == '-'))
			i++;
		p->pos = d = digits(p, i);
		if (d == i)
			return expected(p, "a digit in the exponent");
		i = d;
	}
	v->type = JSON_NUMBER;
	v->n = i - start;
	v->text = arena_alloc(p, v->n + 1);
	if (!v->text)
		return nomem(p);
	memcpy(v->text, p->s + start, v->n);
	v->text[v->n] = '\0';
	p->pos = i;
	return 0;
}

static size_t utf8_encode(unsigned long cp, char *out)
{
	static const unsigned char lead[] = { 0, 0, 0xc0, 0xe0, 0xf0 };
	size_t n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4, i;

	for (i = n - 1; i > 0; i--, cp >>= 6)
		out[i] = 0x80 | (cp & 0x3f);
	out[0] = lead[n] | cp;
	return n;
}

/* hex4 - the value of the 4 hex digits at @i, or -1 (also if they would
 * run past @end). */
static long hex4(const struct parser *p, size_t i, size_t end)
{
	long v = 0;
	int k;

	if (i > end || end - i < 4)
		return -1;
	for (k = 0; k < 4; k++) {
		char c = p->s[i + k];

		if (c >= '0' && c <= '9')
			v = v * 16 + c - '0';
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			v = v * 16 + (c | 0x20) - 'a' + 10;
		else
			return -1;
	}
	return v;
}

/* parse_unicode - the \uXXXX escape (or surrogate pair) at p->pos, in a
 * string ending at @end, appended to @buf as UTF-8. */
static int parse_unicode(struct parser *p, char *buf, size_t *n, size_t end)
{
	long cp = hex4(p, p->pos + 2, end), lo = -1;

	if (cp < 0)
		return fail(p, p->pos, "expected 4 hex digits after \\u");
	if (cp == 0)
		return fail(p, p->pos, "\\u0000 is not supported in strings");
	if (cp >= 0xd800 && cp <= 0xdbff && end - p->pos >= 12 && p->s[p->pos + 6] == '\\' &&
	    p->s[p->pos + 7] == 'u')
		lo = hex4(p, p->pos + 8, end);
	if (cp >= 0xd800 && cp <= 0xdfff && (lo < 0xdc00 || lo > 0xdfff))
		return fail(p, p->pos, "unpaired surrogate \\u%04lX", cp);
	if (lo >= 0) {
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
		p->pos += 6;
	}
	p->pos += 6;
	*n += utf8_encode(cp, buf + *n);
	return 0;
}

static int parse_escape(struct parser *p, char *buf, size_t *n, size_t end)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	char c = p->s[p->pos + 1]; /* before @end: string_end skipped it */
	const char *hit = c ? strchr(from, c) : NULL;

	if (c == 'u')
		return parse_unicode(p, buf, n, end);
	if (!hit && c > 0x20 && c < 0x7f)
		return fail(p, p->pos, "invalid escape \\%c", c);
	if (!hit)
		return fail(p, p->pos, "invalid escape");
	buf[(*n)++] = to[hit - from];
	p->pos += 2;
	return 0;
}

/* string_end - the index of the quote closing the string opened at
 * p->pos, or p->len if there is none. */
static size_t string_end(const struct parser *p)
{
	size_t i;

	for (i = p->pos + 1; i < p->len; i++) {
		if (p->s[i] == '\\')
			i++;
		else if (p->s[i] == '"')
			return i;
	}
	return p->len;
}

/* parse_string - the string at p->pos, decoded into the arena: *@out,
 * NUL-terminated, and its length in *@len. */
static int parse_string(struct parser *p, char **out, size_t *len)
{
	size_t end = string_end(p), n = 0, k;
	char *buf;
	int ret;

	if (end == p->len)
		return fail(p, p->pos, "unterminated string");
	buf = arena_alloc(p, end - p->pos); /* decoding never grows */
	if (!buf)
		return nomem(p);
	for (p->pos++; p->pos < end; p->pos += k) {
		unsigned char c = p->s[p->pos];

		k = 0;
		if (c == '\\') {
			ret = parse_escape(p, buf, &n, end);
			if (ret)
				return ret;
		} else if (c < 0x20) {
			return fail(p, p->pos, "control character 0x%02x in a string", c);
		} else {
			k = utf8_valid((const unsigned char *)p->s + p->pos, end - p->pos);
			if (!k)
				return fail(p, p->pos, "invalid UTF-8 in a string");
			memcpy(buf + n, p->s + p->pos, k);
			n += k;
		}
	}
	buf[n] = '\0';
	p->pos = end + 1;
	*out = buf;
	*len = n;
	return 0;
}

static struct json_value *new_value(struct parser *p)
{
	struct json_value *v = arena_alloc(p, sizeof(*v));

	if (v)
		memset(v, 0, sizeof(*v));
	return v;
}

static int compare_members(const void *a, const void *b)
{
	const struct json_value *x = *(struct json_value *const *)a;
	const struct json_value *y = *(struct json_value *const *)b;
	int c = strcmp(x->key, y->key);

	if (c)
		return c;
	return x->key_pos < y->key_pos ? -1 : x->key_pos > y->key_pos;
}

/* index_members - sort the members of object @v (at least one) by key for
 * json_get; a key seen twice is an error at its second occurrence. */
static int index_members(struct parser *p, struct json_value *v)
{
	size_t i;

	v->sorted = arena_alloc(p, v->n * sizeof(*v->sorted));
	if (!v->sorted)
		return nomem(p);
	memcpy(v->sorted, v->items, v->n * sizeof(*v->sorted));
	qsort(v->sorted, v->n, sizeof(*v->sorted), compare_members);
	for (i = 1; i < v->n; i++)
		if (!strcmp(v->sorted[i - 1]->key, v->sorted[i]->key))
			return fail(p, v->sorted[i]->key_pos, "duplicate key in an object");
	return 0;
}

/* open_container - enter the array or object at p->pos, within the depth
 * limit. */
static int open_container(struct parser *p, struct json_value *v, enum json_type type)
{
	if (++p->depth > JSON_READ_MAX_DEPTH)
		return fail(p, p->pos, "nested deeper than %d arrays and objects",
			    JSON_READ_MAX_DEPTH);
	v->type = type;
	p->pos++;
	skip_ws(p);
	return 0;
}

/* close_container - leave the container @v at its closing bracket: its
 * children, listed from @head, into its items array (and, for an object,
 * sorted by key). */
static int close_container(struct parser *p, struct json_value *v, struct json_value *head)
{
	size_t i;

	p->pos++;
	p->depth--;
	if (!v->n)
		return 0;
	v->items = arena_alloc(p, v->n * sizeof(*v->items));
	if (!v->items)
		return nomem(p);
	for (i = 0; i < v->n; i++, head = head->next)
		v->items[i] = head;
	return v->type == JSON_OBJECT ? index_members(p, v) : 0;
}

static int parse_array(struct parser *p, struct json_value *v)
{
	struct json_value *head = NULL, **tail = &head;
	int ret = open_container(p, v, JSON_ARRAY);

	if (ret || peek(p) == ']')
		return ret ? ret : close_container(p, v, head);
	for (;;) {
		*tail = new_value(p);
		if (!*tail)
			return nomem(p);
		ret = parse_value(p, *tail);
		if (ret)
			return ret;
		tail = &(*tail)->next;
		v->n++;
		skip_ws(p);
		if (peek(p) == ']')
			return close_container(p, v, head);
		if (peek(p) != ',')
			return expected(p, "',' or ']' after an array element");
		p->pos++;
	}
}

/* parse_member - "key": value at p->pos into a new value, *@out. */
static int parse_member(struct parser *p, struct json_value **out)
{
	struct json_value *m = new_value(p);
	size_t key_len;
	int ret;

	if (!m)
		return nomem(p);
	if (peek(p) != '"')
		return expected(p, "a member name in double quotes");
	m->key_pos = p->pos;
	ret = parse_string(p, &m->key, &key_len);
	if (ret)
		return ret;
	skip_ws(p);
	if (peek(p) != ':')
		return expected(p, "':' after an object member name");
	p->pos++;
	*out = m;
	return parse_value(p, m);
}

static int parse_object(struct parser *p, struct json_value *v)
{
	struct json_value *head = NULL, **tail = &head;
	int ret = open_container(p, v, JSON_OBJECT);

	if (ret || peek(p) == '}')
		return ret ? ret : close_container(p, v, head);
	for (;;) {
		ret = parse_member(p, tail);
		if (ret)
			return ret;
		tail = &(*tail)->next;
		v->n++;
		skip_ws(p);
		if (peek(p) == '}')
			return close_container(p, v, head);
		if (peek(p) != ',')
			return expected(p, "',' or '}' after an object member");
		p->pos++;
		skip_ws(p);
	}
}

static int parse_value(struct parser *p, struct json_value *v)
{
	int c;

	skip_ws(p);
	c = peek(p);
	if (c == '{')
		return parse_object(p, v);
	if (c == '[')
		return parse_array(p, v);
	if (c == '"') {
		v->type = JSON_STRING;
		return parse_string(p, &v->text, &v->n);
	}
	if (c == 't')
		return parse_literal(p, v, "true", JSON_BOOL);
	if (c == 'f')
		return parse_literal(p, v, "false", JSON_BOOL);
	if (c == 'n')
		return parse_literal(p, v, "null", JSON_NULL);
	if (c == '-' || (c >= '0' && c <= '9'))
		return parse_number(p, v);
	return expected(p, "a value");
}

int json_parse(const char *text, size_t len, struct json_value **out, char *err, size_t errlen)
{
	struct parser p = { .s = text, .len = len, .err = err, .errlen = errlen };
	int ret;

	*out = NULL;
	if (err && errlen)
		err[0] = '\0';
	/* About 4 bytes of tree per byte of text for a sidecar. */
	p.next_block = len < ARENA_MAX_BLOCK / 4 ? len * 4 : ARENA_MAX_BLOCK;
	if (p.next_block < ARENA_MIN_BLOCK)
		p.next_block = ARENA_MIN_BLOCK;
	p.doc = calloc(1, sizeof(*p.doc));
	if (!p.doc)
		return nomem(&p);
	ret = parse_value(&p, &p.doc->root);
	skip_ws(&p);
	if (!ret && p.pos < p.len)
		ret = expected(&p, "the end of the document");
	if (ret) {
		json_free(&p.doc->root);
		return ret;
	}
	*out = &p.doc->root;
	return 0;
}

void json_free(struct json_value *root)
{
	struct json_doc *doc = (struct json_doc *)root; /* its first member */
	struct arena_block *b, *next;

	if (!doc)
		return;
	for (b = doc->blocks; b; b = next) {
		next = b->next;
		free(b);
	}
	free(doc);
}

int json_read_file(const char *path, size_t max_bytes, struct json_value **out, char *err,
		   size_t errlen)
{
	char *text = NULL, msg[256];
	size_t len;
	int fd, ret;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	ret = read_all(fd, max_bytes, &text, &len, NULL);
	close(fd);
	if (ret == -EFBIG)
		snprintf(err, errlen, "%s: larger than %zu bytes", path, max_bytes);
	else if (ret)
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
	else if ((ret = json_parse(text, len, out, msg, sizeof(msg))))
		snprintf(err, errlen, "%s: %s", path, msg);
	free(text);
	return ret;
}

enum json_type json_type(const struct json_value *v)
{
	return v ? v->type : JSON_ABSENT;
}

const char *json_type_name(enum json_type type)
{
	static const char *const names[] = {
		[JSON_ABSENT] = "nothing",   [JSON_NULL] = "null",	 [JSON_BOOL] = "a boolean",
		[JSON_NUMBER] = "a number",  [JSON_STRING] = "a string", [JSON_ARRAY] = "an array",
		[JSON_OBJECT] = "an object",
	};

	return (unsigned int)type < sizeof(names) / sizeof(names[0]) ? names[type] : "unknown";
}

static bool is_container(const struct json_value *v)
{
	return v && (v->type == JSON_ARRAY || v->type == JSON_OBJECT);
}

size_t json_len(const struct json_value *v)
{
	return is_container(v) || json_type(v) == JSON_STRING ? v->n : 0;
}

const struct json_value *json_index(const struct json_value *v, size_t i)
{
	return is_container(v) && i < v->n ? v->items[i] : NULL;
}

const char *json_member_key(const struct json_value *obj, size_t i)
{
	return json_type(obj) == JSON_OBJECT && i < obj->n ? obj->items[i]->key : NULL;
}

/* lookup - the member of @obj whose key is the @n bytes at @name. */
static const struct json_value *lookup(const struct json_value *obj, const char *name, size_t n)
{
	size_t lo = 0, hi = json_type(obj) == JSON_OBJECT ? obj->n : 0, mid;
	const char *key;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		key = obj->sorted[mid]->key;
		c = strncmp(name, key, n);
		if (!c && key[n])
			c = -1; /* @name is a prefix of @key */
		if (!c)
			return obj->sorted[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

const struct json_value *json_get(const struct json_value *obj, const char *key)
{
	return key ? lookup(obj, key, strlen(key)) : NULL;
}

/* step - one component of a json_path: the @n bytes at @name. */
static const struct json_value *step(const struct json_value *v, const char *name, size_t n)
{
	size_t i, index = 0;

	if (json_type(v) != JSON_ARRAY)
		return lookup(v, name, n);
	for (i = 0; i < n; i++) {
		if (name[i] < '0' || name[i] > '9' || index > (SIZE_MAX - 9) / 10)
			return NULL;
		index = index * 10 + name[i] - '0';
	}
	return n ? json_index(v, index) : NULL;
}

const struct json_value *json_path(const struct json_value *v, const char *path)
{
	const char *dot;

	while (v && path) {
		dot = strchr(path, '.');
		v = step(v, path, dot ? (size_t)(dot - path) : strlen(path));
		path = dot ? dot + 1 : NULL;
	}
	return v;
}

const char *json_str(const struct json_value *v)
{
	return json_type(v) == JSON_STRING ? v->text : NULL;
}

int json_boolean(const struct json_value *v, bool *out)
{
	if (json_type(v) != JSON_BOOL)
		return -EINVAL;
	*out = v->boolean;
	return 0;
}

const char *json_number_text(const struct json_value *v)
{
	return json_type(v) == JSON_NUMBER ? v->text : NULL;
}

/* integer - a number written as an integer: its sign and magnitude. */
static int integer(const struct json_value *v, bool *neg, uint64_t *mag)
{
	const char *s = json_number_text(v);
	unsigned int d;

	if (!s || strpbrk(s, ".eE"))
		return -EINVAL;
	*neg = *s == '-';
	for (*mag = 0, s += *neg; *s; s++) {
		d = *s - '0';
		if (*mag > (UINT64_MAX - d) / 10)
			return -ERANGE;
		*mag = *mag * 10 + d;
	}
	return 0;
}

int json_number_u64(const struct json_value *v, uint64_t *out)
{
	uint64_t mag;
	bool neg;
	int ret = integer(v, &neg, &mag);

	if (ret)
		return ret;
	if (neg && mag)
		return -ERANGE;
	*out = mag;
	return 0;
}

int json_number_i64(const struct json_value *v, int64_t *out)
{
	uint64_t mag;
	bool neg;
	int ret = integer(v, &neg, &mag);

	if (ret)
		return ret;
	if (mag > (uint64_t)INT64_MAX + neg)
		return -ERANGE;
	/* -(2^63) has no positive counterpart: negate in unsigned. */
	*out = neg ? (int64_t)(0 - mag) : (int64_t)mag;
	return 0;
}

/* Like the writer's snprintf, strtod follows LC_NUMERIC, which trapd
 * leaves at "C". */
int json_number_double(const struct json_value *v, double *out)
{
	const char *s = json_number_text(v);
	double d;

	if (!s)
		return -EINVAL;
	d = strtod(s, NULL);
	if (isinf(d))
		return -ERANGE;
	*out = d;
	return 0;
}
