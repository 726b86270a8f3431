// SPDX-License-Identifier: GPL-2.0-only
//
// The data path of one keyed nvme-rdma host command, stock against the
// port (glue.c: vsrw_stock_key_io(), vsrw_mrcore_key_io()), for callgrind:
// what the A/B run's converted host spends per 4 KiB read that the stock
// host does not.  Not posted; the reply is a SEND_WITH_INV of the key.
//
//   host_key_count --list   IMPL@roce/SHAPE
//   host_key_count ROW N    set up ROW, run N commands, tear down
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "common.h"
#include "glue.h"

namespace {

// nvme-rdma's queue: 128 MRs of NVME_RDMA_MAX_SEGMENTS + 1 pages.
constexpr u32 kMrs = 128;
constexpr u32 kPages = 257;

struct Row {
	bool mrcore;
	mrcore_shape_desc shape;

	std::string name() const
	{
		return std::string(mrcore ? "mrcore" : "stock") + "@roce/" +
		       shape.name;
	}
};

const std::vector<Row> &rows()
{
	static const std::vector<Row> all = [] {
		std::vector<Row> v;

		for (const mrcore_shape_desc &s : bench::shapes())
			if (s.nents * s.length <= 128 * 1024)
				for (bool m : {true, false})
					v.push_back({m, s});
		return v;
	}();
	return all;
}

const Row *find_row(const char *name)
{
	for (const Row &r : rows())
		if (r.name() == name)
			return &r;
	return nullptr;
}

} // namespace

int main(int argc, char **argv)
{
	return bench::count_main(
		argc, argv, "host_key_count", rows, find_row,
		[](const char *name, const Row &row, unsigned long n) {
			std::optional<bench::ModuleLoad> module;
			vsrw_tally t{};
			ib_send_wr send{};
			ib_wc reply{};
			int ret = 0;

			if (row.mrcore)
				module.emplace();
			bench::Pair pair(sim::kRoce);
			bench::Buffers bufs(pair.peer, row.shape);
			ib_qp *qp = pair.local.qp;
			rdma_rkey_set *set = nullptr;

			send.opcode = IB_WR_SEND;
			reply.status = IB_WC_SUCCESS;
			reply.wc_flags = IB_WC_WITH_INVALIDATE;
			if (row.mrcore) {
				set = rdma_rkey_set_create(qp, kMrs, kPages);
				if (IS_ERR(set))
					bench::throw_error("rkey set: ",
							   int(PTR_ERR(set)));
			} else if ((ret = vsrw_key_pool_init(qp, kMrs, kPages))) {
				bench::throw_error("ib_mr_pool_init: ", ret);
			}
			for (unsigned long i = 0; i < n && !ret; i++)
				ret = row.mrcore ?
					vsrw_mrcore_key_io(set, bufs.sg.data(),
							   int(bufs.sg.size()),
							   &send, &reply, &t) :
					vsrw_stock_key_io(qp, bufs.sg.data(),
							  int(bufs.sg.size()),
							  &send, &reply, &t);
			if (row.mrcore) {
				rdma_rkey_set_drain(set);
				rdma_rkey_set_destroy(set);
			} else {
				vsrw_key_pool_exit(qp);
			}
			if (ret)
				bench::throw_error("command: ", ret);
			std::string line = std::string(name) +
					   " ios=" + std::to_string(t.ios) +
					   " wrs=" + std::to_string(t.wrs);
			return [line = std::move(line)] {
				std::printf("%s\n", line.c_str());
			};
		});
}
