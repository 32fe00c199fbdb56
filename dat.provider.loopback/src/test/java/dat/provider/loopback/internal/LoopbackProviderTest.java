// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.Dat;
import dat.api.DatCompletionFlags;
import dat.api.DatEpCreator;
import dat.api.DatException;
import dat.api.DatIa;
import dat.api.DatIovOwnership;
import dat.api.DatProviderAttr;
import dat.api.DatReturn;
import dat.spi.DatIaInfo;
import dat.spi.DatProvider;
import dat.spi.DatProviderInfo;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class LoopbackProviderTest {

    private final LoopbackProvider provider = new LoopbackProvider();

    @Test
    void serviceFileAndModuleDescriptorDeclareTheSameProvider() throws Exception {
        Path classes = Path.of(LoopbackProvider.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<String> services = Files.readAllLines(classes.resolve("META-INF/services/dat.spi.DatProvider"))
                .stream().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
        ModuleDescriptor descriptor;
        try (InputStream in = Files.newInputStream(classes.resolve("module-info.class"))) {
            descriptor = ModuleDescriptor.read(in);
        }
        Set<String> provided = descriptor.provides().stream()
                .filter(p -> p.service().equals(DatProvider.class.getName()))
                .flatMap(p -> p.providers().stream()).collect(Collectors.toSet());
        assertEquals(Set.copyOf(services), provided);
        assertEquals(List.of(LoopbackProvider.class.getName()), services);
        assertTrue(descriptor.exports().isEmpty(), "the internal package must not be exported");
    }

    @Test
    void infoListsTheConfiguredIasWithoutOpeningThem() {
        DatProviderInfo info = provider.info();
        assertEquals("loopback", info.name());
        assertTrue(info.available());
        List<String> expected = LoopbackConfig.iaNames();
        assertEquals(expected, info.ias().stream().map(DatIaInfo::iaName).toList());
        assertEquals(LoopbackConfig.IAS_PROPERTY, info.settings().get(0).property());
    }

    @Test
    void iaNamesComeFromTheProperty() {
        String old = System.getProperty(LoopbackConfig.IAS_PROPERTY);
        System.setProperty(LoopbackConfig.IAS_PROPERTY, "lbA, lbB,,lbA");
        try {
            assertEquals(List.of("lbA", "lbB"), provider.info().ias().stream().map(DatIaInfo::iaName).toList());
        } finally {
            if (old == null) {
                System.clearProperty(LoopbackConfig.IAS_PROPERTY);
            } else {
                System.setProperty(LoopbackConfig.IAS_PROPERTY, old);
            }
        }
    }

    @Test
    void describeAcceptsAnyNameAndKeepsItsParams() {
        DatIaInfo ia = provider.describe("fromDatConf7", "x=1");
        assertEquals("fromDatConf7", ia.iaName());
        assertEquals("x=1", ia.iaParams());
        assertEquals(ia.iaAttr().iaAddressPtr(), provider.describe("fromDatConf7", "").iaAttr().iaAddressPtr());
        DatException e = assertThrows(DatException.class, () -> provider.describe("has blank", ""));
        assertEquals(DatReturn.PROVIDER_NOT_FOUND, e.type());
    }

    @Test
    void eachIaNameHasItsOwnStableLoopbackAddress() {
        try (DatIa a = provider.open("addrA", "", 4); DatIa b = provider.open("addrB", "", 4);
             DatIa a2 = provider.open("addrA", "", 4)) {
            assertEquals(a.address(), a2.address());
            assertNotEquals(a.address(), b.address());
            assertTrue(a.address().isLoopbackAddress());
            assertEquals(a.address(), a.query().iaAddressPtr());
        }
    }

    @Test
    void openChecksTheAsyncQueueLength() {
        DatException e = assertThrows(DatException.class, () -> provider.open("loopback0", "", 0));
        assertEquals(DatReturn.INVALID_PARAMETER, e.type());
        assertTrue(e.getMessage().contains("async_evd_min_qlen 0"), e.getMessage());
    }

    @Test
    void attributesClaimWhatIsImplemented() {
        DatProviderAttr a = LoopbackProvider.providerAttr();
        assertEquals(DatIovOwnership.CONSUMER, a.iovOwnershipOnReturn());
        assertEquals(DatCompletionFlags.ALL, a.completionFlagsSupported());
        assertTrue(a.isThreadSafe());
        assertTrue(a.srqSupported());
        assertTrue(a.srqEpPzDifferenceSupported());
        assertEquals(Dat.DAT_SRQ_WATERMARK_LOW, a.srqWatermarksSupported());
        assertEquals(0x11, a.epRecvInfoSupported());
        assertEquals(0x11, a.srqInfoSupported());
        assertEquals(DatEpCreator.NEVER, a.epCreator());
        assertEquals(0, Dat.DAT_OPTIMAL_ALIGNMENT % a.optimalBufferAlignment());
        assertTrue(a.maxPrivateDataSize() >= Dat.DAT_MIN_PRIVATE_DATA_SIZE);
    }
}
