// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal;

import dat.spi.AbstractCno;

/**
 * A consumer notification object ({@code dat_cno_create}). Software only: an EVD bound to it triggers it from
 * whichever thread queues a signalled event or, for completions, from the progress thread when the CQ's
 * completion channel fires (the EVD keeps its CQ armed while a CNO is bound).
 */
final class VerbsCno extends AbstractCno<VerbsIa> {

    VerbsCno(VerbsIa ia, Agent agent) {
        super(ia, agent);
    }
}
