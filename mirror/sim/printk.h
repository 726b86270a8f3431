// SPDX-License-Identifier: GPL-2.0-only
//
// The mirror's kernel log: what core/ and drivers/ print (ibdev_*() and
// pr_*(), rate-limited or not), one line per message, for tests to read.
#ifndef MRCORE_MIRROR_SIM_PRINTK_H
#define MRCORE_MIRROR_SIM_PRINTK_H

#include <string>
#include <vector>

namespace sim {

// "<level> <device>: <text>" ("<level> <text>" without a device), the
// text without its newline; the newest last.  Bounded: the oldest lines go
// once it holds kLogLines.
std::vector<std::string> &kernel_log();
constexpr size_t kLogLines = 1024;

// Lines of the log that contain @needle.
size_t log_count(const std::string &needle);

}

#endif
