// SPDX-License-Identifier: Apache-2.0
package dat.provider.udapl.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import dat.provider.udapl.internal.ffm.LibDat2;
import dat.spi.DatProviderInfo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The bridge on a host without an RDMA device, with the tests' {@code dat.conf} (surefire's
 * {@code DAT_OVERRIDE}): libdat2 loads and lists both entries, neither IA opens, and each says why in the
 * unavailable reason; names the registry does not hold are refused before any C call.
 */
class UdaplProviderTest {

    private static final String LIBDAT = "/usr/lib/x86_64-linux-gnu/libdat2.so.2";

    private static void requireLibdat() {
        assumeTrue(Files.exists(Path.of(LIBDAT)) || "true".equals(System.getenv("CI")),
                "install libdapl2 (apt) to run the bridge's libdat2 tests");
    }

    @Test
    void nameIsUdaplAndTheConstructorDoesNothing() {
        UdaplProvider p = new UdaplProvider();
        assertEquals("udapl", p.name());
    }

    @Test
    void libdat2ListsTheEntriesOfDatOverride() throws Exception {
        requireLibdat();
        LibDat2 lib = LibDat2.load(LibDat2.SONAME);
        List<String[]> entries = UdaplProvider.list(lib);
        assertEquals(List.of("ofa-v2-cma-test", "ofa-v2-test-nolib"),
                entries.stream().map(e -> e[0]).sorted().toList());
        for (String[] e : entries) {
            assertEquals("false", e[1], e[0] + " is nonthreadsafe in dat.conf");
        }
    }

    @Test
    void noIaOpensWithoutADeviceAndTheReasonSaysWhyForEachEntry() {
        requireLibdat();
        DatProviderInfo info = new UdaplProvider().info();
        assertFalse(info.available());
        String reason = info.unavailableReason();
        assertTrue(reason.contains("no IA of libdat2's registry"), reason);
        assertTrue(reason.contains("(DAT_OVERRIDE)"), reason);
        assertTrue(reason.contains("ofa-v2-test-nolib: dat_ia_open returned DAT_PROVIDER_NOT_FOUND"
                + "/DAT_NAME_NOT_REGISTERED (0x800a0064) (libdat2 could not load"), reason);
        // libdaplofa itself loads (regression: it did not while libdat2's symbols were local, see LibDat2Test);
        // without a device its own dat_ia_open fails, and that status is what the reason shows.
        assertTrue(reason.contains("ofa-v2-cma-test: dat_ia_open returned DAT_"), reason);
        assertFalse(reason.contains("ofa-v2-cma-test: dat_ia_open returned DAT_PROVIDER_NOT_FOUND/DAT_NAME_NOT_REG"),
                reason);
        assertTrue(info.ias().isEmpty());
    }

    @Test
    void aMissingLibdatIsTheReasonWithTheFix() {
        String before = System.getProperty(UdaplConfig.LIBDAT_PROPERTY);
        System.setProperty(UdaplConfig.LIBDAT_PROPERTY, "libdat-no-such-library.so.2");
        try {
            DatProviderInfo info = new UdaplProvider().info();
            assertFalse(info.available());
            assertEquals("libdat-no-such-library.so.2 not found: install OFA uDAPL (apt install libdapl2)",
                    info.unavailableReason());
        } finally {
            if (before == null) {
                System.clearProperty(UdaplConfig.LIBDAT_PROPERTY);
            } else {
                System.setProperty(UdaplConfig.LIBDAT_PROPERTY, before);
            }
        }
    }

    @Test
    void aLibraryThatIsNotLibdat2IsRefusedByItsMissingFunction() {
        String before = System.getProperty(UdaplConfig.LIBDAT_PROPERTY);
        System.setProperty(UdaplConfig.LIBDAT_PROPERTY, "libc.so.6");
        try {
            DatProviderInfo info = new UdaplProvider().info();
            assertFalse(info.available());
            assertTrue(info.unavailableReason().startsWith("libdat2.so.2 has no function dat_registry_list_providers"),
                    info.unavailableReason());
        } finally {
            if (before == null) {
                System.clearProperty(UdaplConfig.LIBDAT_PROPERTY);
            } else {
                System.setProperty(UdaplConfig.LIBDAT_PROPERTY, before);
            }
        }
    }

    @Test
    void namesTheRegistryDoesNotOpenAreRefusedWithTheirEntrysProblem() {
        requireLibdat();
        UdaplProvider p = new UdaplProvider();
        DatException e = assertThrows(DatException.class, () -> p.open("ofa-v2-test-nolib", "", 8));
        assertEquals(DatReturn.PROVIDER_NOT_FOUND, e.type());
        assertEquals(DatReturnSubtype.NAME_NOT_REGISTERED, e.subtype());
        assertTrue(e.getMessage().contains("dat_ia_open returned DAT_PROVIDER_NOT_FOUND"), e.getMessage());
        DatException unknown = assertThrows(DatException.class, () -> p.describe("no-such-ia", ""));
        assertEquals(DatReturn.PROVIDER_NOT_FOUND, unknown.type());
        assertNotNull(unknown.getMessage());
    }
}
