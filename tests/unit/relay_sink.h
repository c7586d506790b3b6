/* SPDX-License-Identifier: GPL-2.0-or-later */
/* relay_sink.h - the sink main() gives the guest's backend, for tests that
 *		  start a backend with tap_init(): frames go to net_input(),
 *		  and a backend with room again flushes the qdisc
 */
#ifndef TESTS_UNIT_RELAY_SINK_H
#define TESTS_UNIT_RELAY_SINK_H

#include "../../net/net.h"
#include "../../qdisc/qdisc.h"
#include "../../tap/tap.h"

static const struct tap_sink relay_sink = {
	.input = net_input,
	.input_done = net_input_done,
	.writable = qdisc_flush,
};

#endif /* TESTS_UNIT_RELAY_SINK_H */
