/* SPDX-License-Identifier: GPL-2.0-or-later */
/* relay_sink.h - the sink main() gives the guest's backend, and the
 *		  backends it registers, for tests that start a backend with
 *		  tap_init(): frames go to net_input(), and a backend with
 *		  room again flushes the qdisc
 */
#ifndef TESTS_UNIT_RELAY_SINK_H
#define TESTS_UNIT_RELAY_SINK_H

#include "../../net/net.h"
#include "../../qdisc/qdisc.h"
#include "../../tap/tap.h"
#include "../../stream/stream.h"
#include "../../vhost_user/vhost_user.h"

static const struct tap_sink relay_sink = {
	.input = net_input,
	.input_done = net_input_done,
	.writable = qdisc_flush,
};

/**
 * relay_sink_set() - as main() does before tap_init(): set the sink,
 *		      register the backends
 */
static inline void relay_sink_set(void)
{
	tap_sink_set(&relay_sink);
	tuntap_register();
	stream_register();
	vu_register();
}

#endif /* TESTS_UNIT_RELAY_SINK_H */
