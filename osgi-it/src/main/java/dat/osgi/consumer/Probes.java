// SPDX-License-Identifier: Apache-2.0
package dat.osgi.consumer;

import dat.api.DatCloseFlags;
import dat.api.DatEp;
import dat.api.DatEpAttr;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatIa;
import dat.api.DatLmr;
import dat.api.DatMemPriv;
import dat.api.DatPsp;
import dat.api.DatPspFlags;
import dat.api.DatPz;
import dat.api.DatQos;
import dat.api.DatReturn;
import dat.api.Iov;
import dat.registry.DatRegistry;
import dat.registry.IaEntry;
import dat.registry.ProviderEntry;
import dat.registry.Selection;
import dat.spi.DatProvider;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.osgi.util.tracker.ServiceTracker;

/** What the consumer bundle does when the launcher calls it; each probe answers with lines to check. */
final class Probes {

    /** How an IA is picked: by attributes, as an application would, not by name. */
    static final String QUERY = "provider_name == \"loopback\" && srq_supported && max_message_size >= 4096";

    private static final long TIMEOUT_MICROS = 10_000_000;

    private Probes() {
    }

    /** {@return the mediator probe: what {@link DatRegistry#load()} finds now, and data moved over loopback} */
    static Callable<String> mediator() {
        return () -> {
            DatRegistry registry = DatRegistry.load();
            String found = "mediator providers: " + describe(registry);
            Selection selection = registry.select(QUERY);
            if (selection.matches().isEmpty()) {
                return found + "\nmediator data: no IA matches " + QUERY + "\n" + selection;
            }
            return found + "\nmediator data: " + moveData(registry, selection.matches().getFirst());
        };
    }

    /** {@return the whiteboard probe: the tracked provider services, as a registry} */
    static Callable<String> whiteboard(ServiceTracker<DatProvider, DatProvider> tracker) {
        return () -> {
            List<DatProvider> services = new ArrayList<>(tracker.getTracked().values());
            DatRegistry registry = DatRegistry.builder().providers(services).build();
            return "whiteboard providers: " + describe(registry);
        };
    }

    private static String describe(DatRegistry registry) {
        return registry.providers().stream().map(Probes::describe).sorted().collect(Collectors.joining(" "));
    }

    private static String describe(ProviderEntry p) {
        return p.name() + "=" + (p.available() ? "available" : "unavailable");
    }

    /** Connects two EPs of the IA through a PSP and sends one message; @return what arrived */
    private static String moveData(DatRegistry registry, IaEntry entry) {
        // Shared: the provider may move the data on another thread than this one.
        try (Arena arena = Arena.ofShared()) {
            DatIa ia = registry.open(entry.name());
            try {
                return moveData(ia, arena, entry.name());
            } finally {
                // Frees every object of the IA; then the arena may release the memory they registered.
                ia.close(DatCloseFlags.ABRUPT);
            }
        }
    }

    private static String moveData(DatIa ia, Arena arena, String name) {
        byte[] message = "hello from an OSGi consumer".getBytes(StandardCharsets.US_ASCII);
        DatPz pz = ia.createPz();
        DatEvd crEvd = ia.createEvd(4, null, DatEvdFlags.CR);
        DatEpAttr attr = DatEpAttr.builder().build();
        DatEp active = ia.createEp(pz, ia.createEvd(8, null, DatEvdFlags.DTO), ia.createEvd(8, null,
                DatEvdFlags.DTO), ia.createEvd(4, null, DatEvdFlags.CONNECTION), attr);
        DatEvd passiveRecv = ia.createEvd(8, null, DatEvdFlags.DTO);
        DatEp passive = ia.createEp(pz, passiveRecv, ia.createEvd(8, null, DatEvdFlags.DTO),
                ia.createEvd(4, null, DatEvdFlags.CONNECTION), attr);
        DatPsp psp = ia.createPspAny(crEvd, DatPspFlags.CONSUMER);
        active.connect(ia.address(), psp.connQual(), TIMEOUT_MICROS, null, DatQos.BEST_EFFORT, 0);
        DatEvent event = new DatEvent();
        expect(crEvd, event, DatEventType.CONNECTION_REQUEST_EVENT);
        event.cr().accept(passive, null);
        expect(active.query().connectEvd(), event, DatEventType.CONNECTION_EVENT_ESTABLISHED);

        MemorySegment source = arena.allocate(64, 64).copyFrom(MemorySegment.ofArray(message));
        MemorySegment target = arena.allocate(64, 64);
        DatLmr from = ia.createLmr(pz, source, DatMemPriv.LOCAL_READ);
        DatLmr to = ia.createLmr(pz, target, DatMemPriv.LOCAL_WRITE);
        Iov iov = Iov.allocate(arena, 1);
        check(passive.postRecv(1, iov.set(0, to, 0, 64), 1, 0), "dat_ep_post_recv");
        check(active.postSend(1, iov.set(0, from, 0, message.length), 2, 0), "dat_ep_post_send");
        expect(passiveRecv, event, DatEventType.DTO_COMPLETION);
        byte[] received = target.asSlice(0, event.transferredLength()).toArray(
                ValueLayout.JAVA_BYTE);
        return "IA " + name + " received '" + new String(received, StandardCharsets.US_ASCII) + "' ("
                + event.dtoStatus() + ")";
    }

    private static void expect(DatEvd evd, DatEvent event, DatEventType type) {
        check(evd.await(TIMEOUT_MICROS, 1, event), "dat_evd_wait for " + type);
        if (event.type() != type) {
            throw new IllegalStateException("expected " + type + ", got " + event);
        }
    }

    private static void check(int status, String call) {
        if (status != DatReturn.DAT_SUCCESS) {
            throw new IllegalStateException(call + ": " + DatReturn.toString(status));
        }
    }
}
