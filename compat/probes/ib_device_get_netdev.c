// SPDX-License-Identifier: GPL-2.0-only
/*
 * MRCORE_HAVE_IB_DEVICE_GET_NETDEV: ib_device_get_netdev() is declared and
 * exported by ib_core (6.12).  6.1 declares ib_device_netdev() instead but
 * does not export it, so a module cannot call either there.
 */
#include <rdma/ib_verbs.h>

struct net_device *mrcore_probe(struct ib_device *dev);
struct net_device *mrcore_probe(struct ib_device *dev)
{
	return ib_device_get_netdev(dev, 1);
}
