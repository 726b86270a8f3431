// SPDX-License-Identifier: GPL-2.0-only
//
// The kernel's workers, for the tests: schedule_work() queues, and nothing
// runs until flush_work() runs that work or a test runs what is queued, as
// a worker would have by then.
#ifndef MRCORE_MIRROR_SIM_WORK_H
#define MRCORE_MIRROR_SIM_WORK_H

namespace sim {

// Runs the queued work, oldest first, and what it queues in turn; returns
// how many items ran.
unsigned int run_work();

// Forgets what is queued (the objects it belonged to are gone at teardown).
void forget_work();

} // namespace sim

#endif // MRCORE_MIRROR_SIM_WORK_H
