// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import dat.spi.AbstractCno;

/**
 * A consumer notification object ({@code dat_cno_create}): enabled EVDs bound to it trigger it when a
 * signalled event arrives. With an agent, the agent is called on the thread that produced the event (the
 * posting thread: it must not block or post on the data path of the same connection); without one, a
 * thread in {@link #await} wakes with the EVD.
 */
final class LoopbackCno extends AbstractCno<LoopbackIa> {

    LoopbackCno(LoopbackIa ia, Agent agent) {
        super(ia, agent);
    }
}
