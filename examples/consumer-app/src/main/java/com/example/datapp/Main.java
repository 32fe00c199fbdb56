// SPDX-License-Identifier: Apache-2.0
package com.example.datapp;

import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatEvent;
import dat.api.DatIa;
import dat.api.DatReturn;
import dat.registry.DatRegistry;
import dat.registry.IaEntry;
import dat.registry.Selection;

/**
 * Picks an IA by the attributes the application needs, opens it and round-trips one event through an EVD.
 * Exit 0 when that worked, 1 when no IA fits (the registry's explanation is printed).
 */
public final class Main {

    /** What the application needs of an IA, in the registry's query language. */
    static final String NEEDS = "srq_supported && max_message_size >= 4096";

    private Main() {
    }

    /** @param args none */
    public static void main(String[] args) {
        DatRegistry registry = DatRegistry.load();
        Selection selection = registry.select(NEEDS);
        if (selection.matches().isEmpty()) {
            System.out.println("no IA offers " + NEEDS);
            System.out.print(registry);
            System.exit(1);
        }
        IaEntry entry = selection.matches().getFirst();
        try (DatIa ia = registry.open(entry.name()); DatEvd evd = ia.createEvd(4, null, DatEvdFlags.SOFTWARE)) {
            DatEvent event = new DatEvent();
            int posted = evd.postSoftwareEvent(42);
            int taken = evd.dequeue(event);
            System.out.println("IA " + entry.name() + " of provider " + entry.providerName() + " offers " + NEEDS
                    + "; event round trip: " + DatReturn.toString(posted) + ", " + DatReturn.toString(taken) + ", "
                    + event.softwareEventValue());
        }
    }
}
