// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* cli_json.c - errors as JSON under --json (cli_json.h): the log module
 * keeps the first error, this prints it. */
#include "trapd/cli/cli_json.h"

#include <stdio.h>
#include <string.h>

#include "trapd/util/json.h"
#include "trapd/util/log.h"

bool cli_wants_json(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		size_t n = strlen(argv[i]);

		/* "--j", "--js", ...: getopt_long takes a unique prefix */
		if (n > 2 && !strncmp(argv[i], "--json", n))
			return true;
	}
	return false;
}

void cli_json_errors_begin(void)
{
	log_keep_first_error(true);
}

int cli_json_errors_end(int status)
{
	const char *msg = log_first_error();
	struct json_writer w;
	char fallback[64];

	log_keep_first_error(false);
	if (status == 0) {
		if (msg)
			log_error("%s", msg);
		return status;
	}
	if (!msg) {
		snprintf(fallback, sizeof(fallback), "failed with exit status %d", status);
		msg = fallback;
	}
	fflush(stdout);
	json_init(&w, stdout);
	json_object_begin(&w);
	json_key(&w, "error");
	json_object_begin(&w);
	json_kv_string(&w, "message", msg);
	json_kv_i64(&w, "exit_status", status);
	json_object_end(&w);
	json_object_end(&w);
	json_finish(&w);
	fflush(stdout);
	return status;
}
