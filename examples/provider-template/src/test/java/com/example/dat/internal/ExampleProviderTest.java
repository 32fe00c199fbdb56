// SPDX-License-Identifier: Apache-2.0
package com.example.dat.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.DatCloseFlags;
import dat.api.DatDtoStatus;
import dat.api.DatEp;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatException;
import dat.api.DatIa;
import dat.api.DatLmr;
import dat.api.DatMemPriv;
import dat.api.DatPsp;
import dat.api.DatPspFlags;
import dat.api.DatPz;
import dat.api.DatQos;
import dat.api.DatReturn;
import dat.api.Iov;
import dat.spi.DatProvider;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.module.ModuleDescriptor;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the kit cannot see from outside: how the provider is found, and the memory it must refuse. */
class ExampleProviderTest {

    @Test
    void moduleInfoAndTheServicesFileNameTheSameProvider() throws IOException {
        // module-info serves the module path, META-INF/services the class path and OSGi's mediator.
        ModuleDescriptor descriptor = ExampleProvider.class.getModule().getDescriptor();
        assertEquals(List.of(ExampleProvider.class.getName()), descriptor.provides().stream()
                .filter(p -> p.service().equals(DatProvider.class.getName())).flatMap(p -> p.providers().stream())
                .toList());
        try (InputStream in = ExampleProvider.class.getModule()
                .getResourceAsStream("META-INF/services/" + DatProvider.class.getName())) {
            assertEquals(ExampleProvider.class.getName(), new String(in.readAllBytes(), StandardCharsets.UTF_8)
                    .strip());
        }
        assertEquals(ExampleProvider.NAME, new ExampleProvider().info().name());
        assertEquals(ExampleProvider.IA_NAME, new ExampleProvider().info().ias().getFirst().iaName());
    }

    @Test
    void threadConfinedMemoryIsRefusedAtRegistration() {
        // A send from another thread would copy into it there, and throw on the data path.
        DatIa ia = new ExampleProvider().open(ExampleProvider.IA_NAME, "", 4);
        try (Arena confined = Arena.ofConfined()) {
            DatPz pz = ia.createPz();
            DatException e = assertThrows(DatException.class,
                    () -> ia.createLmr(pz, confined.allocate(64), DatMemPriv.ALL));
            assertTrue(e.is(DatReturn.INVALID_PARAMETER), e::getMessage);
        } finally {
            ia.close(DatCloseFlags.ABRUPT);
        }
    }

    @Test
    void aFailedDtoBreaksTheConnectionAndFlushesBothSides() {
        // Found by the TCK's random campaign: an RDMA write the target refused completed in error, yet the
        // connection stayed up; a reliable connection breaks, both sides flush and get a BROKEN event.
        DatIa ia = new ExampleProvider().open(ExampleProvider.IA_NAME, "", 8);
        try (Arena arena = Arena.ofShared()) {
            DatPz pz = ia.createPz();
            DatEvd[] a = {ia.createEvd(16, null, DatEvdFlags.DTO), ia.createEvd(16, null, DatEvdFlags.DTO),
                ia.createEvd(16, null, DatEvdFlags.CONNECTION)};
            DatEvd[] b = {ia.createEvd(16, null, DatEvdFlags.DTO), ia.createEvd(16, null, DatEvdFlags.DTO),
                ia.createEvd(16, null, DatEvdFlags.CONNECTION)};
            DatEp active = ia.createEp(pz, a[0], a[1], a[2], null);
            DatEp passive = ia.createEp(pz, b[0], b[1], b[2], null);
            DatEvd crEvd = ia.createEvd(4, null, DatEvdFlags.CR);
            DatPsp psp = ia.createPspAny(crEvd, DatPspFlags.CONSUMER);
            active.connect(ia.address(), psp.connQual(), 1_000_000, null, DatQos.BEST_EFFORT, 0);
            next(crEvd).cr().accept(passive, null);
            assertEquals(DatEventType.CONNECTION_EVENT_ESTABLISHED, next(a[2]).type());
            assertEquals(DatEventType.CONNECTION_EVENT_ESTABLISHED, next(b[2]).type());
            DatLmr src = ia.createLmr(pz, arena.allocate(64), DatMemPriv.ALL);
            DatLmr noWrite = ia.createLmr(pz, arena.allocate(64), DatMemPriv.LOCAL_READ | DatMemPriv.REMOTE_READ);
            Iov iov = Iov.allocate(arena, 1).set(0, src, 0, 8);
            assertEquals(DatReturn.DAT_SUCCESS, active.postSend(1, iov, 1, 0), "a send no receive waits for");
            int rc = passive.postRdmaWrite(1, iov, 2, noWrite.rmrContext(), noWrite.address(), 8, 0);
            if (rc == DatReturn.DAT_SUCCESS) {
                assertNotEquals(DatDtoStatus.SUCCESS, next(b[1]).dtoStatus());
                assertEquals(DatEventType.CONNECTION_EVENT_BROKEN, next(b[2]).type());
                DatEvent flushed = next(a[1]);
                assertEquals(1, flushed.userCookie());
                assertEquals(DatDtoStatus.FLUSHED, flushed.dtoStatus());
                assertEquals(DatEventType.CONNECTION_EVENT_BROKEN, next(a[2]).type());
            } else {
                assertEquals(DatReturn.DAT_PRIVILEGES_VIOLATION, rc);
            }
        } finally {
            ia.close(DatCloseFlags.ABRUPT);
        }
    }

    private static DatEvent next(DatEvd evd) {
        DatEvent e = new DatEvent();
        assertEquals(DatReturn.DAT_SUCCESS, evd.dequeue(e), "an event is there");
        return e;
    }
}
