// SPDX-License-Identifier: GPL-2.0-only
//
// The kernel's printk as core/ and drivers/ see it: ibdev_*() and pr_*()
// messages into sim::kernel_log(), and ib_wc_status_msg().
#include <cstdarg>
#include <cstdio>
#include <cstdlib>

#include "mrcore_internal.h"
#include "../printk.h"

namespace sim {

std::vector<std::string> &kernel_log()
{
	static std::vector<std::string> log;

	return log;
}

size_t log_count(const std::string &needle)
{
	size_t n = 0;

	for (const std::string &line : kernel_log())
		n += line.find(needle) != std::string::npos;
	return n;
}

}

extern "C" void mirror_printk(const char *level, const struct ib_device *dev,
			      const char *fmt, ...)
{
	char text[512];
	va_list ap;

	va_start(ap, fmt);
	std::vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	std::string line = std::string(level) + " ";
	if (dev)
		line += std::string(dev->name) + ": ";
	line += text;
	while (!line.empty() && line.back() == '\n')
		line.pop_back();
	auto &log = sim::kernel_log();
	if (log.size() >= sim::kLogLines)
		log.erase(log.begin());
	log.push_back(line);
	if (std::getenv("MIRROR_PRINTK"))
		std::fprintf(stderr, "mirror: %s\n", line.c_str());
}

// The kernel's words differ; the mirror names the status.
extern "C" const char *ib_wc_status_msg(enum ib_wc_status status)
{
	switch (status) {
#define MIRROR_WC(x)	case IB_WC_##x: return "status " #x
	MIRROR_WC(SUCCESS);
	MIRROR_WC(LOC_LEN_ERR);
	MIRROR_WC(LOC_QP_OP_ERR);
	MIRROR_WC(LOC_EEC_OP_ERR);
	MIRROR_WC(LOC_PROT_ERR);
	MIRROR_WC(WR_FLUSH_ERR);
	MIRROR_WC(MW_BIND_ERR);
	MIRROR_WC(BAD_RESP_ERR);
	MIRROR_WC(LOC_ACCESS_ERR);
	MIRROR_WC(REM_INV_REQ_ERR);
	MIRROR_WC(REM_ACCESS_ERR);
	MIRROR_WC(REM_OP_ERR);
	MIRROR_WC(RETRY_EXC_ERR);
	MIRROR_WC(RNR_RETRY_EXC_ERR);
	MIRROR_WC(LOC_RDD_VIOL_ERR);
	MIRROR_WC(REM_INV_RD_REQ_ERR);
	MIRROR_WC(REM_ABORT_ERR);
	MIRROR_WC(INV_EECN_ERR);
	MIRROR_WC(INV_EEC_STATE_ERR);
	MIRROR_WC(FATAL_ERR);
	MIRROR_WC(RESP_TIMEOUT_ERR);
	MIRROR_WC(GENERAL_ERR);
#undef MIRROR_WC
	}
	return "unknown status";
}
