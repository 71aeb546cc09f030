// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* fuzz_http_answer - what the uploader takes from a server's answer and
 * puts in its messages, on arbitrary bytes: the error detail of a body
 * (http_answer_detail: made safe, so no control byte and only well-formed
 * UTF-8), a URL made safe to print (http_url_for_message: never a query,
 * where Azure's SAS token travels, nor a fragment), and safe_text itself
 * (upload/safe_text.h) on the raw bytes, NULs included, at output sizes
 * the input picks: bounded, safe, and idempotent. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "upload/http_request.h"
#include "upload/safe_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* check_safe - @s holds no control byte, no C1, nothing ill-formed. */
static void check_safe(const char *s, size_t cap)
{
	size_t n = strlen(s);

	if (n >= cap || !safe_text_is_safe(s, n))
		abort();
}

static void fuzz_safe_text(const uint8_t *data, size_t size)
{
	char out[1024], again[1024];
	size_t cap;

	if (!size)
		return;
	cap = 1 + data[0] % sizeof(out); /* 1 to 1024 */
	memset(out, 0xa5, sizeof(out));
	safe_text((const char *)data + 1, size - 1, out, cap);
	check_safe(out, cap);
	if (cap < sizeof(out) && (uint8_t)out[cap] != 0xa5)
		abort(); /* wrote past @outlen */
	safe_text_str(out, again, sizeof(again));
	if (strcmp(out, again))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char body[HTTP_RESPONSE_KEEP + 1], out[256], url[512];

	fuzz_safe_text(data, size);
	if (size > HTTP_RESPONSE_KEEP)
		size = HTTP_RESPONSE_KEEP;
	memcpy(body, data, size);
	body[size] = '\0';
	http_answer_detail(body, out, sizeof(out));
	check_safe(out, sizeof(out));
	http_url_for_message(body, url, sizeof(url));
	if (strpbrk(url, "?#"))
		abort();
	return 0;
}
