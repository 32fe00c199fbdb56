// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.DatException;
import dat.api.DatReturn;
import dat.provider.verbs.internal.ffm.LibIbverbs;
import dat.provider.verbs.internal.ffm.LibraryUnavailableException;
import dat.spi.DatProvider;
import dat.spi.DatProviderInfo;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The provider in this JVM, which has native access (surefire passes
 * {@code --enable-native-access=dat.provider.verbs}). On a build machine without RDMA it must report the
 * missing device (or the missing library) and nothing else; on one with a device, the missing DAT objects.
 */
class VerbsProviderTest {

    private final VerbsProvider provider = new VerbsProvider();

    @Test
    void nativeAccessIsEnabledForTheTests() {
        assertEquals("dat.provider.verbs", VerbsProvider.class.getModule().getName());
        assertTrue(VerbsProvider.class.getModule().isNativeAccessEnabled());
    }

    @Test
    void serviceFileAndModuleDescriptorDeclareTheSameProvider() throws Exception {
        Path classes = Path.of(VerbsProvider.class.getProtectionDomain().getCodeSource().getLocation().toURI());
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
        assertEquals(List.of(VerbsProvider.class.getName()), services);
        assertTrue(descriptor.exports().isEmpty(), "the internal packages must not be exported");
    }

    @Test
    void infoGivesTheReasonThatAppliesHere() {
        DatProviderInfo info = provider.info();
        assertEquals("verbs", info.name());
        assertEquals("verbs", provider.name());
        String expected = expectedReasonOnThisMachine();
        if (expected == null) {
            // Devices exist: an active port is an available IA, otherwise the reason names the port states.
            assertTrue(info.available() ? info.ias().stream().allMatch(ia -> ia.iaName().startsWith("ofa-v2-"))
                    : info.unavailableReason().startsWith("no active RDMA port ("), String.valueOf(info));
        } else {
            assertFalse(info.available());
            assertTrue(info.ias().isEmpty());
            assertEquals(expected, info.unavailableReason());
        }
    }

    @Test
    void withoutADeviceTheReasonIsTheSoftRoceRecipe() {
        Assumptions.assumeTrue(VerbsConfig.NO_DEVICE_REASON.equals(expectedReasonOnThisMachine()),
                "this machine has RDMA or lacks libibverbs");
        assertEquals("no RDMA device (libibverbs lists none); for soft-RoCE: modprobe rdma_rxe; "
                + "rdma link add rxe0 type rxe netdev <if>", provider.info().unavailableReason());
    }

    /** The sysfs check that spares a machine without RDMA the scan's downcalls says what libibverbs says. */
    @Test
    void theKernelsListingAgreesWithLibibverbs() {
        LibIbverbs lib = loadOrSkip();
        int listed;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment count = arena.allocate(JAVA_INT);
            MemorySegment list = lib.ibv_get_device_list(count);
            listed = list.address() == 0 ? 0 : count.get(JAVA_INT, 0);
            if (list.address() != 0) {
                lib.ibv_free_device_list(list);
            }
        }
        assertTrue(VerbsDeviceScan.kernelListsDevices() || listed == 0,
                "libibverbs lists " + listed + " devices where sysfs lists none");
    }

    @Test
    void aVerbsDeviceIsAnUverbsEntryOfTheKernelsClass(@TempDir Path sysfs) throws Exception {
        assertFalse(VerbsDeviceScan.kernelListsDevices(sysfs), "no class directory: no uverbs module");
        Path dir = Files.createDirectories(sysfs.resolve("class/infiniband_verbs"));
        Files.writeString(dir.resolve("abi_version"), "6\n");
        assertFalse(VerbsDeviceScan.kernelListsDevices(sysfs), "the module, no device");
        Files.createDirectory(dir.resolve("uverbs0"));
        assertTrue(VerbsDeviceScan.kernelListsDevices(sysfs));
    }

    @Test
    void infoIsCached() {
        assertSame(provider.info(), provider.info());
    }

    @Test
    void openFailsWithTheReason() {
        DatException e = assertThrows(DatException.class, () -> provider.open("ofa-v2-nodev-1", "", 8));
        assertEquals(DatReturn.PROVIDER_NOT_FOUND, e.type());
        assertTrue(e.getMessage().contains(provider.info().unavailableReason()), e.getMessage());
    }

    @Test
    void describeOfAnUnknownIaNamesTheReason() {
        DatException e = assertThrows(DatException.class, () -> provider.describe("ofa-v2-nodev-1", ""));
        assertEquals(DatReturn.PROVIDER_NOT_FOUND, e.type());
        assertTrue(e.getMessage().contains("offers no IA named ofa-v2-nodev-1"), e.getMessage());
    }

    @Test
    void freeingANullDeviceListIsRefusedInsteadOfCrashing() {
        LibIbverbs lib = loadOrSkip();
        assertThrows(IllegalArgumentException.class, () -> lib.ibv_free_device_list(MemorySegment.NULL));
    }

    /** What libibverbs says here, asked directly: the reason {@link VerbsProvider#info()} must give. */
    private static String expectedReasonOnThisMachine() {
        LibIbverbs lib;
        try {
            lib = LibIbverbs.load();
        } catch (LibraryUnavailableException e) {
            return e.getMessage();
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment count = arena.allocate(JAVA_INT);
            MemorySegment list = lib.ibv_get_device_list(count);
            if (list.address() == 0) {
                return VerbsConfig.NO_DEVICE_REASON;
            }
            lib.ibv_free_device_list(list);
            return count.get(JAVA_INT, 0) == 0 ? VerbsConfig.NO_DEVICE_REASON : null;
        }
    }

    private static LibIbverbs loadOrSkip() {
        try {
            return LibIbverbs.load();
        } catch (LibraryUnavailableException e) {
            Assumptions.abort(e.getMessage());
            throw new AssertionError(e);
        }
    }
}
