// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import dat.spi.AbstractCno;

/**
 * A consumer notification object ({@code dat_cno_create}). Software only: an enabled EVD bound to it triggers it from
 * the IA's progress thread, which an event queued on any thread wakes ({@link OfiIa#cnoPending}), outside the IA's
 * lock; events queued close together may trigger it once. An agent runs on that thread, so it must not block: the IA's
 * connection events and unpolled completions wait for it.
 */
final class OfiCno extends AbstractCno<OfiIa> {

    OfiCno(OfiIa ia, Agent agent) {
        super(ia, agent);
    }
}
