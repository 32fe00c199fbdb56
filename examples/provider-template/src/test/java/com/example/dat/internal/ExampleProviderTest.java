package com.example.dat.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.DatCloseFlags;
import dat.api.DatException;
import dat.api.DatIa;
import dat.api.DatMemPriv;
import dat.api.DatPz;
import dat.api.DatReturn;
import dat.spi.DatProvider;
import java.lang.foreign.Arena;
import java.io.IOException;
import java.io.InputStream;
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
}
