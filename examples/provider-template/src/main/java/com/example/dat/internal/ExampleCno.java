// SPDX-License-Identifier: Apache-2.0
package com.example.dat.internal;

import dat.spi.AbstractCno;

/**
 * A consumer notification object ({@code dat_cno_create}): the shell ({@link AbstractCno}) does every CNO call. An
 * enabled EVD bound to it triggers it on {@link Fabric#TIMER}'s thread soon after an event is queued, outside
 * {@link Fabric#LOCK} (an agent may call DAT); so an agent must not block: connection timeouts wait for it.
 */
final class ExampleCno extends AbstractCno<ExampleIa> {

    ExampleCno(ExampleIa ia, Agent agent) {
        super(ia, agent);
    }
}
