// SPDX-License-Identifier: GPL-2.0-only
/*
 * The device profiles' one table (tests/cases/profiles.h), compiled as C:
 * its rows are indexed by designators ([MRCORE_PROFILE_ROCE] = ...), which
 * C++ does not have.  hca.h names the rows sim::kRoce, sim::kIwarp, ...
 */
#define MRCORE_PROFILES_DEFINE
#include "cases/profiles.h"
