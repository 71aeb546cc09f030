// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* listing.c - one page of a store's listing from its XML answer
 * (listing.h).
 *
 * Not an XML parser: a reader of the small part of XML the two answers
 * use, on bytes a server chose. One pass, left to right, no recursion. A
 * tokenizer (next_token) cuts the answer into start tags, end tags and
 * text; it skips the declaration, comments and processing instructions,
 * steps over attributes (quoted values and all) and refuses a DOCTYPE
 * (entity definitions) and CDATA, which neither store writes. A stack of
 * at most DEPTH_MAX open elements tags each with what it is in the answer,
 * looked up in the format's table of (parent, name) -> node
 * (ListBucketResult > Contents > Key is N_KEY, EnumerationResults > Blobs
 * > Blob > Name too); an element the table does not know is skipped with
 * everything in it. The text of a value element (Key, Size, ...) is
 * decoded into one bounded buffer and taken when the element ends.
 *
 * Every search is a memchr from the cursor on, and the cursor only moves
 * forward, so the time is linear in the answer; memory is bounded by the
 * caps of listing.h.
 */
#include "upload/listing.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "upload/object.h"
#include "upload/safe_text.h"

#define DEPTH_MAX 32			/* open elements; the answers nest 5 deep */
#define VALUE_MAX UPLOAD_LIST_TOKEN_MAX /* bytes of a value kept (a key needs 1024) */
#define ITEMS_FIRST 64			/* items and prefixes allocated first */
#define META_FIRST 4			/* metadata items of an object allocated first */
#define META_NAME_IN 256		/* bytes of a metadata element's name looked at */
#define SHOWN 80			/* bytes of untrusted text in a message */

/* What an element is in the answer. */
enum node {
	N_SKIP,	      /* unknown, with everything in it */
	N_DOC,	      /* outside the root (the parent of the root) */
	N_ROOT,	      /* ListBucketResult, EnumerationResults */
	N_LIST,	      /* Blobs */
	N_ITEM,	      /* Contents, Blob: one object */
	N_PROPS,      /* Blob/Properties */
	N_META,	      /* Blob/Metadata */
	N_PREFIXES,   /* CommonPrefixes, BlobPrefix */
	N_KEY,	      /* the values from here on */
	N_SIZE,	      /* Size, Content-Length */
	N_ETAG,	      /* ETag, Etag */
	N_MODIFIED,   /* LastModified, Last-Modified */
	N_META_VALUE, /* each child of Metadata */
	N_PREFIX,     /* CommonPrefixes/Prefix, BlobPrefix/Name */
	N_NEXT,	      /* NextContinuationToken, NextMarker */
	N_TRUNCATED,  /* IsTruncated */
};

struct rule {
	enum node parent;
	const char *name; /* NULL: any name */
	enum node node;
};

struct format {
	const char *root, *item, *size, *prefixes; /* element names, for messages */
	const struct rule *rules;
	size_t nrules;
	bool truncation; /* S3: the next page only when IsTruncated is true */
};

static const struct rule s3_rules[] = {
	{ N_DOC, "ListBucketResult", N_ROOT },
	{ N_ROOT, "Contents", N_ITEM },
	{ N_ITEM, "Key", N_KEY },
	{ N_ITEM, "Size", N_SIZE },
	{ N_ITEM, "ETag", N_ETAG },
	{ N_ITEM, "LastModified", N_MODIFIED },
	{ N_ROOT, "CommonPrefixes", N_PREFIXES },
	{ N_PREFIXES, "Prefix", N_PREFIX },
	{ N_ROOT, "IsTruncated", N_TRUNCATED },
	{ N_ROOT, "NextContinuationToken", N_NEXT },
};

static const struct rule azblob_rules[] = {
	{ N_DOC, "EnumerationResults", N_ROOT },  { N_ROOT, "Blobs", N_LIST },
	{ N_ROOT, "NextMarker", N_NEXT },	  { N_LIST, "Blob", N_ITEM },
	{ N_LIST, "BlobPrefix", N_PREFIXES },	  { N_ITEM, "Name", N_KEY },
	{ N_ITEM, "Properties", N_PROPS },	  { N_ITEM, "Metadata", N_META },
	{ N_PROPS, "Content-Length", N_SIZE },	  { N_PROPS, "Etag", N_ETAG },
	{ N_PROPS, "Last-Modified", N_MODIFIED }, { N_META, NULL, N_META_VALUE },
	{ N_PREFIXES, "Name", N_PREFIX },
};

static const struct format s3_format = {
	.root = "ListBucketResult",
	.item = "Contents",
	.size = "Size",
	.prefixes = "<CommonPrefixes>",
	.rules = s3_rules,
	.nrules = sizeof(s3_rules) / sizeof(s3_rules[0]),
	.truncation = true,
};

static const struct format azblob_format = {
	.root = "EnumerationResults",
	.item = "Blob",
	.size = "Content-Length",
	.prefixes = "<BlobPrefix>",
	.rules = azblob_rules,
	.nrules = sizeof(azblob_rules) / sizeof(azblob_rules[0]),
};

/* Bits of what an item, or the root, has had once already. */
enum seen {
	SEEN_KEY = 1 << 0,
	SEEN_SIZE = 1 << 1,
	SEEN_ETAG = 1 << 2,
	SEEN_MODIFIED = 1 << 3,
	SEEN_NEXT = 1 << 4,
	SEEN_TRUNCATED = 1 << 5,
};

enum tok_kind { T_END, T_TEXT, T_OPEN, T_EMPTY, T_CLOSE };

struct tok {
	enum tok_kind kind;
	const char *at; /* where it starts: its '<', or its text */
	const char *s;	/* the element's name, or the raw text */
	size_t n;
};

/* The decoded text of the value element being read. */
struct value {
	char s[VALUE_MAX + 1]; /* the first VALUE_MAX bytes, NUL-terminated */
	size_t n;	       /* bytes in s */
	size_t len;	       /* bytes in all: over n when cut */
	bool control;	       /* a byte < 0x20 or 0x7f among them */
};

struct open_element {
	const char *name; /* in the answer */
	size_t len;
	enum node node;
};

struct parse {
	const struct format *f;
	const char *xml, *p, *end; /* the answer and the cursor */
	const char *strip;
	size_t strip_len;
	struct upload_page *page;
	size_t items_cap, prefixes_cap;
	struct open_element open[DEPTH_MAX];
	int depth;
	struct value v;
	struct upload_listed cur; /* the item being read */
	size_t cur_number;	  /* 1 for the page's first <Contents> */
	size_t meta_cap;
	unsigned cur_seen, root_seen;
	bool cur_out;		    /* not under @strip: left out */
	char cur_where[SHOWN + 16]; /* "'KEY'" once known, "<Contents> 3" before */
	bool truncated, done;
	char *err;
	size_t errlen;
};

/* fail - "ROOT: " and the message into the caller's buffer; returns @code. */
__attribute__((format(printf, 3, 4))) static int fail(struct parse *ps, int code, const char *fmt,
						      ...)
{
	va_list ap;
	int n;

	if (!ps->err || !ps->errlen)
		return code;
	n = snprintf(ps->err, ps->errlen, "%s: ", ps->f->root);
	if (n >= 0 && (size_t)n < ps->errlen) {
		va_start(ap, fmt);
		vsnprintf(ps->err + n, ps->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return code;
}

static int no_memory(struct parse *ps)
{
	return fail(ps, -ENOMEM, "out of memory");
}

static size_t offset(const struct parse *ps, const char *at)
{
	return (size_t)(at - ps->xml);
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static bool is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

static bool is_value(enum node n)
{
	return n >= N_KEY;
}

/* --- tokens ----------------------------------------------------------- */

static bool at(const struct parse *ps, const char *s)
{
	size_t n = strlen(s);

	return (size_t)(ps->end - ps->p) >= n && !memcmp(ps->p, s, n);
}

/* find - the first @close (2 or 3 bytes) in [@p, @end), or NULL. Not
 * memmem: a sanitizer's memmem checks the whole rest of the answer on
 * every call, which makes a million comments quadratic in a fuzz build. */
static const char *find(const char *p, const char *end, const char *close)
{
	size_t n = strlen(close);

	while ((p = memchr(p, close[0], (size_t)(end - p)))) {
		if ((size_t)(end - p) < n)
			return NULL;
		if (!memcmp(p, close, n))
			return p;
		p++;
	}
	return NULL;
}

/* skip_past - the cursor past the first @close after @skip bytes
 * ("<!--" ... "-->"). Returns 0 or -EBADMSG (never closed). */
static int skip_past(struct parse *ps, size_t skip, const char *close, const char *what)
{
	const char *found = find(ps->p + skip, ps->end, close);

	if (!found)
		return fail(ps, -EBADMSG, "%s at byte %zu never ends", what, offset(ps, ps->p));
	ps->p = found + strlen(close);
	return 0;
}

/* name_end - the end of the element name at @p: at a space, '/' or '>'.
 * Returns NULL (and fails) when a byte no name may hold comes first. */
static const char *name_end(struct parse *ps, const char *p)
{
	for (; p < ps->end && !is_space(*p) && *p != '/' && *p != '>'; p++)
		if (is_control((unsigned char)*p) || *p == '<' || *p == '&' || *p == '"' ||
		    *p == '\'' || *p == '=') {
			fail(ps, -EBADMSG, "a tag at byte %zu: bad element name",
			     offset(ps, ps->p));
			return NULL;
		}
	return p;
}

/* read_tag - the tag at the cursor ('<', not "<?" or "<!") into @t: its
 * name and kind (T_OPEN, T_EMPTY for "<a/>", T_CLOSE), the cursor past its
 * '>'. Attributes are stepped over, quoted values and all (a '>' may be in
 * one). Returns 0 or -EBADMSG. */
static int read_tag(struct parse *ps, struct tok *t)
{
	const char *p = ps->p + 1, *q;
	bool close = p < ps->end && *p == '/';

	t->at = ps->p;
	t->s = close ? p + 1 : p;
	p = name_end(ps, t->s);
	if (!p)
		return -EBADMSG;
	t->n = (size_t)(p - t->s);
	if (!t->n)
		return fail(ps, -EBADMSG, "a tag at byte %zu has no name", offset(ps, ps->p));
	while (p < ps->end && *p != '>') {
		if (*p == '<')
			break;
		if (*p == '"' || *p == '\'') {
			q = memchr(p + 1, *p, (size_t)(ps->end - p - 1));
			if (!q)
				break;
			p = q;
		}
		p++;
	}
	if (p == ps->end || *p != '>')
		return fail(ps, -EBADMSG, "the tag at byte %zu never ends", offset(ps, ps->p));
	t->kind = close ? T_CLOSE : p[-1] == '/' ? T_EMPTY : T_OPEN;
	ps->p = p + 1;
	return 0;
}

/* next_token - the token at the cursor into @t, the cursor past it: text
 * up to the next '<', a tag, or T_END at the end of the answer. The XML
 * declaration, processing instructions and comments are skipped. Returns
 * 0 or -EBADMSG. */
static int next_token(struct parse *ps, struct tok *t)
{
	const char *lt;
	int e;

	for (;;) {
		if (ps->p == ps->end) {
			t->kind = T_END;
			return 0;
		}
		if (*ps->p != '<') {
			lt = memchr(ps->p, '<', (size_t)(ps->end - ps->p));
			t->kind = T_TEXT;
			t->at = t->s = ps->p;
			t->n = (size_t)((lt ? lt : ps->end) - ps->p);
			ps->p += t->n;
			return 0;
		}
		if (ps->end - ps->p < 2 || (ps->p[1] != '?' && ps->p[1] != '!'))
			return read_tag(ps, t);
		if (ps->p[1] == '?')
			e = skip_past(ps, 2, "?>", "a processing instruction");
		else if (at(ps, "<!--"))
			e = skip_past(ps, 4, "-->", "a comment");
		else
			return fail(ps, -EBADMSG, "a DOCTYPE or CDATA at byte %zu: not expected",
				    offset(ps, ps->p));
		if (e)
			return e;
	}
}

/* --- text ------------------------------------------------------------- */

/* put - @n decoded bytes onto @v: kept while there is room, counted and
 * looked at for control bytes always. */
static void put(struct value *v, const char *s, size_t n)
{
	size_t i, room = VALUE_MAX - v->n;

	for (i = 0; i < n && !v->control; i++)
		v->control = is_control((unsigned char)s[i]);
	memcpy(v->s + v->n, s, n < room ? n : room);
	v->n += n < room ? n : room;
	v->s[v->n] = '\0';
	v->len += n;
}

/* put_utf8 - code point @cp (a valid one) as UTF-8. */
static void put_utf8(struct value *v, unsigned cp)
{
	char b[4];
	size_t n;

	n = safe_text_utf8_encode(cp, b);
	put(v, b, n);
}

static int digit(char c, unsigned base)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (base == 16 && c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (base == 16 && c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* char_ref - the character reference "&#NN;" or "&#xHH;" at @s (@n bytes
 * on) into ps->v. Refused: no digits, no ';', a code point XML does not
 * allow (surrogates, U+FFFE, U+FFFF, above U+10FFFF) or one that is a NUL
 * or a control byte. Returns the bytes it took, or 0 (and fails). */
static size_t char_ref(struct parse *ps, const char *s, size_t n)
{
	const char *p = s + 2, *end = s + n, *digits;
	unsigned base = 10, cp = 0;
	int d;

	if (p < end && *p == 'x') {
		base = 16;
		p++;
	}
	for (digits = p; p < end && (d = digit(*p, base)) >= 0; p++)
		if (cp <= 0x10ffff) /* stays above once above: no overflow */
			cp = cp * base + (unsigned)d;
	if (p == digits || p == end || *p != ';' || cp < 0x20 || cp == 0x7f ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe || cp == 0xffff || cp > 0x10ffff) {
		fail(ps, -EBADMSG, "a bad character reference at byte %zu", offset(ps, s));
		return 0;
	}
	put_utf8(&ps->v, cp);
	return (size_t)(p + 1 - s);
}

/* reference - the entity or character reference at @s ('&', @n bytes on)
 * into ps->v. Returns the bytes it took, or 0 (and fails). */
static size_t reference(struct parse *ps, const char *s, size_t n)
{
	static const struct {
		const char *name;
		char c;
	} named[] = { { "&amp;", '&' },
		      { "&lt;", '<' },
		      { "&gt;", '>' },
		      { "&quot;", '"' },
		      { "&apos;", '\'' } };
	size_t i, len;

	for (i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		len = strlen(named[i].name);
		if (n >= len && !memcmp(s, named[i].name, len)) {
			put(&ps->v, &named[i].c, 1);
			return len;
		}
	}
	if (n >= 2 && s[1] == '#')
		return char_ref(ps, s, n);
	fail(ps, -EBADMSG, "an unknown entity or a bare '&' at byte %zu", offset(ps, s));
	return 0;
}

/* add_text - the raw text @t decoded onto the value being read. Returns
 * 0 or -EBADMSG. */
static int add_text(struct parse *ps, const struct tok *t)
{
	const char *s = t->s, *amp;
	size_t n = t->n, run;

	while (n) {
		amp = memchr(s, '&', n);
		run = amp ? (size_t)(amp - s) : n;
		put(&ps->v, s, run);
		s += run;
		n -= run;
		if (!n)
			break;
		run = reference(ps, s, n);
		if (!run)
			return -EBADMSG;
		s += run;
		n -= run;
	}
	return 0;
}

/* trimmed - the value without the white space around it (for numbers and
 * booleans: pretty-printed answers put some there); "" when it holds a NUL.
 * A value cut at VALUE_MAX stays too long for either. */
static const char *trimmed(struct value *v)
{
	char *s = v->s;

	if (memchr(v->s, '\0', v->n)) /* "12\0x" is no more a number than "12x" */
		return "";
	while (v->n && is_space(v->s[v->n - 1]))
		v->s[--v->n] = '\0';
	while (is_space(*s))
		s++;
	return s;
}

/* shown - @s made safe to show, cut to SHOWN bytes, in @out. */
static const char *shown(const char *s, size_t n, char *out)
{
	return safe_text(s, n, out, SHOWN);
}

/* --- items ------------------------------------------------------------ */

static void listed_free(struct upload_listed *it)
{
	free(it->key);
	free(it->meta);
	memset(it, 0, sizeof(*it));
}

void upload_page__free(struct upload_page *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nitems; i++)
		listed_free(&p->items[i]);
	for (i = 0; i < p->nprefixes; i++)
		free(p->prefixes[i]);
	free(p->items);
	free(p->prefixes);
	free(p->next);
	memset(p, 0, sizeof(*p));
}

/* once - mark @bit seen in *@seen; fails if it was already. */
static int once(struct parse *ps, unsigned *seen, unsigned bit, const char *name)
{
	if (*seen & bit)
		return fail(ps, -EBADMSG, "<%s> twice in %s", name,
			    seen == &ps->root_seen ? "the answer" : ps->cur_where);
	*seen |= bit;
	return 0;
}

/* grown - @arr (*@cap elements of @size bytes, @n of them used) with room
 * for one more: its capacity doubled from @first, at most @max. Returns
 * it, or NULL (@arr untouched) when out of memory. */
static void *grown(void *arr, size_t *cap, size_t n, size_t size, size_t first, size_t max)
{
	size_t want;
	void *a;

	if (n < *cap)
		return arr;
	want = *cap ? *cap * 2 : first;
	if (want > max)
		want = max;
	a = realloc(arr, want * size);
	if (a)
		*cap = want;
	return a;
}

/* begin_item - a new <Contents> or <Blob>: the item being read is empty,
 * named by its number in messages until its key is known. */
static void begin_item(struct parse *ps)
{
	listed_free(&ps->cur);
	ps->cur_number++;
	ps->cur_seen = 0;
	ps->cur_out = false;
	ps->meta_cap = 0;
	snprintf(ps->cur_where, sizeof(ps->cur_where), "<%s> %zu", ps->f->item, ps->cur_number);
}

/* end_item - the item read complete: onto the page, unless not under
 * @strip. Returns 0, -EBADMSG (no key or size), -E2BIG or -ENOMEM. */
static int end_item(struct parse *ps)
{
	struct upload_page *pg = ps->page;
	struct upload_listed *items;

	if (!(ps->cur_seen & SEEN_KEY))
		return fail(ps, -EBADMSG, "%s has no key", ps->cur_where);
	if (!(ps->cur_seen & SEEN_SIZE))
		return fail(ps, -EBADMSG, "%s has no <%s>", ps->cur_where, ps->f->size);
	if (ps->cur_out) {
		listed_free(&ps->cur);
		return 0;
	}
	if (pg->nitems == UPLOAD_LIST_ITEMS_MAX)
		return fail(ps, -E2BIG, "more than %d objects in one page", UPLOAD_LIST_ITEMS_MAX);
	items = grown(pg->items, &ps->items_cap, pg->nitems, sizeof(*items), ITEMS_FIRST,
		      UPLOAD_LIST_ITEMS_MAX);
	if (!items)
		return no_memory(ps);
	pg->items = items;
	pg->items[pg->nitems++] = ps->cur;
	memset(&ps->cur, 0, sizeof(ps->cur));
	return 0;
}

/* checked_key - the value read as a key or prefix: refused when empty,
 * longer than UPLOAD_KEY_MAX or holding a control byte. Returns the key
 * relative to @strip, or NULL when it is not under @strip (or is @strip
 * itself); *@e is 0 or -EBADMSG. */
static const char *checked_key(struct parse *ps, const char *name, const char *where, int *e)
{
	struct value *v = &ps->v;
	char show[SHOWN];

	*e = 0;
	if (!v->len)
		*e = fail(ps, -EBADMSG, "<%s> of %s is empty", name, where);
	else if (v->len > UPLOAD_KEY_MAX)
		*e = fail(ps, -EBADMSG, "<%s> of %s: longer than %d bytes", name, where,
			  UPLOAD_KEY_MAX);
	else if (v->control)
		*e = fail(ps, -EBADMSG, "<%s> '%s' of %s: a control byte", name,
			  shown(v->s, v->len, show), where);
	if (*e || v->len <= ps->strip_len || memcmp(v->s, ps->strip, ps->strip_len))
		return NULL;
	return v->s + ps->strip_len;
}

/* set_key - the item's key (checked_key), relative to @strip; a key
 * outside it marks the item left out. From here on, messages name the
 * item by its key. */
static int set_key(struct parse *ps, const char *name)
{
	char show[SHOWN];
	const char *rel;
	int e = once(ps, &ps->cur_seen, SEEN_KEY, name);

	if (e)
		return e;
	rel = checked_key(ps, name, ps->cur_where, &e);
	if (e)
		return e;
	snprintf(ps->cur_where, sizeof(ps->cur_where), "'%s'", shown(ps->v.s, ps->v.n, show));
	if (!rel) {
		ps->cur_out = true;
		return 0;
	}
	ps->cur.key = strdup(rel);
	return ps->cur.key ? 0 : no_memory(ps);
}

/* set_size - the item's size: decimal digits only (white space around
 * them aside), at most UINT64_MAX. */
static int set_size(struct parse *ps, const char *name)
{
	const char *s;
	char *end;
	int e = once(ps, &ps->cur_seen, SEEN_SIZE, name);

	if (e)
		return e;
	s = trimmed(&ps->v);
	if (*s < '0' || *s > '9') /* strtoull would take "-1" or " +1" */
		return fail(ps, -EBADMSG, "<%s> of %s: not a number", name, ps->cur_where);
	errno = 0;
	ps->cur.size = strtoull(s, &end, 10);
	if (*end)
		return fail(ps, -EBADMSG, "<%s> of %s: not a number", name, ps->cur_where);
	if (errno == ERANGE)
		return fail(ps, -EBADMSG, "<%s> of %s: out of range", name, ps->cur_where);
	return 0;
}

/* set_etag - the ETag without its quotes ("abc" or &quot;abc&quot; from
 * S3; Azure's 0x8DC... has none). */
static int set_etag(struct parse *ps, const char *name)
{
	const char *s = ps->v.s;
	size_t n = ps->v.n;
	int e = once(ps, &ps->cur_seen, SEEN_ETAG, name);

	if (e)
		return e;
	if (ps->v.control)
		return fail(ps, -EBADMSG, "<%s> of %s: a control byte", name, ps->cur_where);
	if (n >= 2 && s[0] == '"' && s[n - 1] == '"') {
		s++;
		n -= 2;
	}
	if (ps->v.len > ps->v.n || n >= sizeof(ps->cur.etag))
		return fail(ps, -EBADMSG, "<%s> of %s: longer than %zu bytes", name, ps->cur_where,
			    sizeof(ps->cur.etag) - 1);
	memcpy(ps->cur.etag, s, n);
	ps->cur.etag[n] = '\0';
	return 0;
}

/* set_modified - the item's last-modified text as sent: refused when it
 * does not fit in struct upload_listed.modified or holds a control byte. */
static int set_modified(struct parse *ps, const char *name)
{
	int e = once(ps, &ps->cur_seen, SEEN_MODIFIED, name);

	if (e)
		return e;
	if (ps->v.control)
		return fail(ps, -EBADMSG, "<%s> of %s: a control byte", name, ps->cur_where);
	if (ps->v.len >= sizeof(ps->cur.modified))
		return fail(ps, -EBADMSG, "<%s> of %s: longer than %zu bytes", name, ps->cur_where,
			    sizeof(ps->cur.modified) - 1);
	memcpy(ps->cur.modified, ps->v.s, ps->v.n + 1);
	return 0;
}

/* add_meta - the Metadata child <@name>value</@name> onto the item: its
 * name made a metadata name (upload_meta__name), its value cut to fit
 * (not inside a UTF-8 sequence). Skipped: a name it refuses, a value
 * with a control byte, items past UPLOAD_META_MAX. Returns 0 or -ENOMEM. */
static int add_meta(struct parse *ps, const char *name, size_t len)
{
	struct upload_meta *m;
	char in[META_NAME_IN], canon[sizeof(m->name)];
	size_t n = ps->v.n, k;

	if (ps->cur.nmeta == UPLOAD_META_MAX || len >= sizeof(in) || ps->v.control)
		return 0;
	memcpy(in, name, len);
	in[len] = '\0';
	if (upload_meta__name(in, canon, sizeof(canon)))
		return 0;
	m = grown(ps->cur.meta, &ps->meta_cap, ps->cur.nmeta, sizeof(*m), META_FIRST,
		  UPLOAD_META_MAX);
	if (!m)
		return no_memory(ps);
	ps->cur.meta = m;
	m += ps->cur.nmeta++;
	memcpy(m->name, canon, sizeof(m->name));
	if (n >= sizeof(m->value)) {
		n = sizeof(m->value) - 1;
		for (k = 0; k < 3 && n && ((unsigned char)ps->v.s[n] & 0xc0) == 0x80; k++)
			n--;
	}
	memcpy(m->value, ps->v.s, n);
	m->value[n] = '\0';
	return 0;
}

/* add_prefix - a common prefix (checked_key) onto the page, relative to
 * @strip; left out when outside it. Returns 0, -EBADMSG, -E2BIG (over
 * UPLOAD_LIST_ITEMS_MAX) or -ENOMEM. */
static int add_prefix(struct parse *ps, const char *name)
{
	struct upload_page *pg = ps->page;
	const char *rel;
	char *copy, **prefixes;
	int e;

	rel = checked_key(ps, name, ps->f->prefixes, &e);
	if (!rel)
		return e;
	if (pg->nprefixes == UPLOAD_LIST_ITEMS_MAX)
		return fail(ps, -E2BIG, "more than %d prefixes in one page", UPLOAD_LIST_ITEMS_MAX);
	prefixes = grown(pg->prefixes, &ps->prefixes_cap, pg->nprefixes, sizeof(*prefixes),
			 ITEMS_FIRST, UPLOAD_LIST_ITEMS_MAX);
	if (!prefixes)
		return no_memory(ps);
	pg->prefixes = prefixes;
	copy = strdup(rel);
	if (!copy)
		return no_memory(ps);
	pg->prefixes[pg->nprefixes++] = copy;
	return 0;
}

/* set_next - the token or marker of the next page (whether S3's counts
 * is finish's business); empty: none. */
static int set_next(struct parse *ps, const char *name)
{
	int e = once(ps, &ps->root_seen, SEEN_NEXT, name);

	if (e)
		return e;
	if (ps->v.len > UPLOAD_LIST_TOKEN_MAX)
		return fail(ps, -EBADMSG, "<%s>: longer than %d bytes", name,
			    UPLOAD_LIST_TOKEN_MAX);
	if (ps->v.control)
		return fail(ps, -EBADMSG, "<%s>: a control byte", name);
	if (!ps->v.len) /* empty: the last page */
		return 0;
	ps->page->next = strdup(ps->v.s);
	return ps->page->next ? 0 : no_memory(ps);
}

/* set_truncated - IsTruncated: "true" or "false", nothing else. */
static int set_truncated(struct parse *ps, const char *name)
{
	const char *s;
	int e = once(ps, &ps->root_seen, SEEN_TRUNCATED, name);

	if (e)
		return e;
	s = trimmed(&ps->v);
	if (!strcmp(s, "true"))
		ps->truncated = true;
	else if (strcmp(s, "false"))
		return fail(ps, -EBADMSG, "<%s>: neither true nor false", name);
	return 0;
}

/* --- elements --------------------------------------------------------- */

/* lookup - what the element @t is under @parent in format @f; N_SKIP
 * when the format does not know it there. */
static enum node lookup(const struct format *f, enum node parent, const struct tok *t)
{
	size_t i;

	for (i = 0; i < f->nrules; i++)
		if (f->rules[i].parent == parent &&
		    (!f->rules[i].name ||
		     (!strncmp(f->rules[i].name, t->s, t->n) && !f->rules[i].name[t->n])))
			return f->rules[i].node;
	return N_SKIP;
}

/* on_open - the start of element @t: pushed with what it is. Fails on a
 * root that is not the format's, an element inside a value, and nesting
 * past DEPTH_MAX. */
static int on_open(struct parse *ps, const struct tok *t)
{
	struct open_element *top = ps->depth ? &ps->open[ps->depth - 1] : NULL;
	enum node parent = top ? top->node : N_DOC, node = N_SKIP;
	char show[SHOWN];

	if (is_value(parent))
		return fail(ps, -EBADMSG, "<%s> holds an element at byte %zu",
			    shown(top->name, top->len, show), offset(ps, t->at));
	if (parent != N_SKIP)
		node = lookup(ps->f, parent, t);
	if (parent == N_DOC && node != N_ROOT)
		return fail(ps, -EBADMSG, "not the answer's root, which is <%s>",
			    shown(t->s, t->n, show));
	if (ps->depth == DEPTH_MAX)
		return fail(ps, -EBADMSG, "elements nested over %d deep at byte %zu", DEPTH_MAX,
			    offset(ps, t->at));
	ps->open[ps->depth++] = (struct open_element){ t->s, t->n, node };
	if (node == N_ITEM)
		begin_item(ps);
	if (is_value(node)) {
		ps->v.s[0] = '\0';
		ps->v.n = ps->v.len = 0;
		ps->v.control = false;
	}
	return 0;
}

/* on_value - the value element @el, read to its end, taken. */
static int on_value(struct parse *ps, const struct open_element *el)
{
	char name[32];

	snprintf(name, sizeof(name), "%.*s", (int)el->len, el->name);
	switch (el->node) {
	case N_KEY:
		return set_key(ps, name);
	case N_SIZE:
		return set_size(ps, name);
	case N_ETAG:
		return set_etag(ps, name);
	case N_MODIFIED:
		return set_modified(ps, name);
	case N_META_VALUE:
		return add_meta(ps, el->name, el->len);
	case N_PREFIX:
		return add_prefix(ps, name);
	case N_NEXT:
		return set_next(ps, name);
	case N_TRUNCATED:
		return set_truncated(ps, name);
	default:
		return 0;
	}
}

/* on_close - the end of element @t (or of an empty one): it must close
 * the element open last. */
static int on_close(struct parse *ps, const struct tok *t)
{
	struct open_element el;
	char show[SHOWN], show_open[SHOWN];

	if (!ps->depth)
		return fail(ps, -EBADMSG, "</%s> at byte %zu closes nothing",
			    shown(t->s, t->n, show), offset(ps, t->at));
	el = ps->open[ps->depth - 1];
	if (el.len != t->n || memcmp(el.name, t->s, t->n))
		return fail(ps, -EBADMSG, "</%s> at byte %zu closes <%s>", shown(t->s, t->n, show),
			    offset(ps, t->at), shown(el.name, el.len, show_open));
	ps->depth--;
	if (is_value(el.node))
		return on_value(ps, &el);
	if (el.node == N_ITEM)
		return end_item(ps);
	if (el.node == N_ROOT)
		ps->done = true;
	return 0;
}

/* run - every token up to the end of the root element. */
static int run(struct parse *ps)
{
	struct open_element *top;
	char show[SHOWN];
	struct tok t;
	int e;

	while (!ps->done) {
		e = next_token(ps, &t);
		if (e)
			return e;
		top = ps->depth ? &ps->open[ps->depth - 1] : NULL;
		switch (t.kind) {
		case T_END:
			if (!top)
				return fail(ps, -EBADMSG,
					    "not in the answer, which has no element");
			return fail(ps, -EBADMSG, "cut short: <%s> not closed",
				    shown(top->name, top->len, show));
		case T_TEXT:
			e = top && is_value(top->node) ? add_text(ps, &t) : 0;
			break;
		case T_OPEN:
			e = on_open(ps, &t);
			break;
		case T_EMPTY:
			e = on_open(ps, &t);
			if (!e)
				e = on_close(ps, &t);
			break;
		case T_CLOSE:
			e = on_close(ps, &t);
			break;
		}
		if (e)
			return e;
	}
	return 0;
}

/* finish - S3's next page: the token when IsTruncated is true, which it
 * then needs. Azure's NextMarker stands as read (absent or empty: none). */
static int finish(struct parse *ps)
{
	if (!ps->f->truncation)
		return 0;
	if (!(ps->root_seen & SEEN_TRUNCATED))
		return fail(ps, -EBADMSG, "no <IsTruncated>");
	if (!ps->truncated) {
		free(ps->page->next);
		ps->page->next = NULL;
		return 0;
	}
	if (!ps->page->next)
		return fail(ps, -EBADMSG,
			    "<IsTruncated> is true but no <NextContinuationToken>: the listing "
			    "cannot go on");
	return 0;
}

/* parse - @xml as an answer of format @f into @page (upload_list_parse_s3). */
static int parse(const struct format *f, const char *xml, size_t len, const char *strip,
		 struct upload_page *page, char *err, size_t errlen)
{
	struct parse ps;
	int e;

	memset(page, 0, sizeof(*page));
	memset(&ps, 0, sizeof(ps));
	ps.f = f;
	ps.xml = ps.p = xml;
	ps.end = xml + len;
	ps.strip = strip ? strip : "";
	ps.strip_len = strlen(ps.strip);
	ps.page = page;
	ps.err = err;
	ps.errlen = errlen;
	if (len > UPLOAD_LIST_BODY_MAX)
		e = fail(&ps, -E2BIG, "an answer of %zu bytes, over %u", len, UPLOAD_LIST_BODY_MAX);
	else
		e = run(&ps);
	if (!e)
		e = finish(&ps);
	listed_free(&ps.cur);
	if (e)
		upload_page__free(page);
	return e;
}

int upload_list_parse_s3(const char *xml, size_t len, const char *strip, struct upload_page *page,
			 char *err, size_t errlen)
{
	return parse(&s3_format, xml, len, strip, page, err, errlen);
}

int upload_list_parse_azblob(const char *xml, size_t len, const char *strip,
			     struct upload_page *page, char *err, size_t errlen)
{
	return parse(&azblob_format, xml, len, strip, page, err, errlen);
}
