// SPDX-License-Identifier: GPL-2.0-only
//
// ib_core's side of the verbs the core calls: the device list and its one
// client, and the entry points that hand a call to the device (hca.cpp), as
// ib_core calls a driver's ib_device_ops.
#include <algorithm>
#include <cstdio>
#include <vector>

#include "hca.h"
#include "shims.h"

namespace {

// Registered devices and the client, as ib_core keeps them: a client sees
// add() for every device there is or comes, and remove() when either goes.
std::vector<ib_device *> &live_devices()
{
	static std::vector<ib_device *> v;
	return v;
}

ib_client *registered_client;

void client_add(ib_client &client, ib_device &dev)
{
	if (client.add(&dev))
		std::fprintf(stderr, "sim: %s: client add failed\n", dev.name);
}

} // namespace

void sim::device_added(ib_device &dev)
{
	live_devices().push_back(&dev);
	if (registered_client)
		client_add(*registered_client, dev);
}

void sim::device_removed(ib_device &dev)
{
	auto &devs = live_devices();

	devs.erase(std::find(devs.begin(), devs.end(), &dev));
	if (registered_client && dev.client_data)
		registered_client->remove(&dev, dev.client_data);
}

extern "C" int ib_register_client(struct ib_client *client)
{
	registered_client = client;
	for (ib_device *dev : live_devices())
		client_add(*client, *dev);
	return 0;
}

extern "C" void ib_unregister_client(struct ib_client *client)
{
	for (ib_device *dev : live_devices())
		if (dev->client_data)
			client->remove(dev, dev->client_data);
	registered_client = nullptr;
}

extern "C" struct ib_mr *ib_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
				     u32 max_num_sg)
{
	return sim::hca_of(pd->device).alloc_mr(pd, type, max_num_sg);
}

extern "C" int ib_dereg_mr(struct ib_mr *ibmr)
{
	sim::Mr &mr = sim::mr_of(ibmr);

	mr.hca->dereg_mr(&mr);	// frees mr
	return 0;
}

extern "C" int ib_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sgl,
			    int sg_nents, unsigned int *sg_offset_p,
			    unsigned int page_size)
{
	return sim::mr_of(ibmr).map_sg(sgl, sg_nents, sg_offset_p, page_size);
}

extern "C" int ib_post_send(struct ib_qp *qp, const struct ib_send_wr *wr,
			    const struct ib_send_wr **bad_wr)
{
	return sim::qp_of(qp).post(wr, bad_wr);
}

extern "C" void ib_drain_sq(struct ib_qp *qp)
{
	sim::set_qp_error(qp);
	sim::step(qp, sim::queued(qp));
}
