/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* store_config.h - where captures are stored, as the rules file says it
 * ([upload]) and as upload/ takes it (struct upload_config): the daemon's
 * uploader writes there, and `trapd captures`, `trapd merge` and the
 * commands that read a capture from a store read from there with the
 * same settings and credentials.
 */
#ifndef TRAPD_UTIL_STORE_CONFIG_H
#define TRAPD_UTIL_STORE_CONFIG_H

#include "rules/rules.h"
#include "upload/backend.h"

/* store_config__from_rules - @r's [upload] as a backend configuration
 * (borrowing @r's strings: @r must outlive @cfg). */
void store_config__from_rules(const struct rules *r, struct upload_config *cfg);

#endif
