/* fuzz_http_answer - what the uploader takes from a server's answer and
 * puts in its messages, on arbitrary bytes: the error detail of a body
 * (http_answer_detail) and a URL made safe to print (http_url_for_message:
 * never a query, where Azure's SAS token travels, nor a fragment). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "upload/http_request.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char body[HTTP_RESPONSE_KEEP + 1], out[256], url[512];

	if (size > HTTP_RESPONSE_KEEP)
		size = HTTP_RESPONSE_KEEP;
	memcpy(body, data, size);
	body[size] = '\0';
	http_answer_detail(body, out, sizeof(out));
	if (strlen(out) >= sizeof(out))
		abort();
	http_url_for_message(body, url, sizeof(url));
	if (strpbrk(url, "?#"))
		abort();
	return 0;
}
