// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.DatException;
import dat.api.DatIa;
import dat.api.DatReturn;
import dat.spi.DatIaInfo;
import dat.spi.DatProviderInfo;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The scan, the IA names and attributes, and the refusals of IAs the provider cannot open. */
class OfiProviderTest {

    private static final OfiProvider PROVIDER = new OfiProvider();

    @Test
    void namesFollowProviderDomainAndFabric() {
        assertEquals("ofi-tcp-lo", OfiConfig.iaName("tcp", "lo", null));
        assertEquals("ofi-tcp-lo-1-128", OfiConfig.iaName("tcp", "lo", "::1/128"));
        assertEquals("ofi-tcp+ofi_rxm-eth0-192.0.2.0-24", OfiConfig.iaName("tcp;ofi_rxm", "eth0", "192.0.2.0/24"));
        assertEquals("ofi-x-x", OfiConfig.iaName("", "/", null));
    }

    @Test
    void tcpOnLoopbackIsAnIaWithItsLibfabricNamesAndHonestLimits() {
        DatProviderInfo info = PROVIDER.info();
        assertTrue(info.available(), info.unavailableReason());
        DatIaInfo ia = info.ias().stream().filter(i -> i.iaName().equals("ofi-tcp-lo")).findFirst().orElseThrow();
        Map<String, String> specific = ia.providerAttr().providerSpecificAttr();
        assertEquals("tcp", specific.get("fi_provider"));
        assertEquals("lo", specific.get("fi_domain"));
        assertEquals("127.0.0.1/32", specific.get("fi_fabric"));
        assertEquals("FI_EP_MSG", specific.get("fi_ep_type"));
        assertEquals("127.0.0.1", ia.iaAttr().iaAddressPtr().getHostAddress());
        // The connection data less the reject's mark and the receiver credits' header (OfiCredit).
        assertEquals(Long.parseLong(specific.get("fi_cm_data_size")) - 1 - OfiCredit.CM_BYTES,
                ia.providerAttr().maxPrivateDataSize());
        assertTrue(ia.providerAttr().maxPrivateDataSize() >= 64, "DAT's minimum private data");
        assertTrue(ia.providerAttr().srqSupported(), "tcp's shared receive contexts");
        assertTrue(Long.parseLong(specific.get("fi_max_ep_srx_ctx")) > 0, "tcp 1.17 shares receive contexts");
        assertTrue(ia.iaAttr().maxSrqs() > 0, "so SRQs are claimed");
        assertEquals(0, ia.iaAttr().maxRmrs(), "no memory windows yet: denied");
    }

    @Test
    void everyListedIaIsAnFiEpMsgEntryOrShmAndUnique() {
        DatProviderInfo info = PROVIDER.info();
        assertEquals(info.ias().size(), info.ias().stream().map(DatIaInfo::iaName).distinct().count());
        for (DatIaInfo ia : info.ias()) {
            Map<String, String> specific = ia.providerAttr().providerSpecificAttr();
            assertEquals(specific.get("fi_provider").equals("shm") ? "FI_EP_RDM" : "FI_EP_MSG",
                    specific.get("fi_ep_type"), ia.iaName());
            assertTrue(ia.iaName().matches("ofi-[a-z0-9._+-]+"), ia.iaName());
        }
    }

    /**
     * libfabric's registration cache (the verbs provider's, on by default) registers every region with remote write
     * access and keeps it past fi_close: the provider turns it off before the library initialises. Read through
     * libc's getenv, since System.getenv is the JVM's snapshot from its start.
     */
    @Test
    @SuppressWarnings("restricted")
    void libfabricInitialisesWithoutItsRegistrationCache() throws Throwable {
        assertTrue(PROVIDER.info().available());
        Linker linker = Linker.nativeLinker();
        MethodHandle getenv = linker.downcallHandle(linker.defaultLookup().find("getenv").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment value = (MemorySegment) getenv.invokeExact(arena.allocateFrom("FI_MR_CACHE_MAX_COUNT"));
            assertTrue(value.address() != 0, "FI_MR_CACHE_MAX_COUNT is set");
            assertEquals("0", value.reinterpret(2).getString(0));
        }
    }

    @Test
    void unknownIaIsProviderNotFound() {
        DatException e = assertThrows(DatException.class, () -> PROVIDER.open("ofi-no-such-ia", "", 16));
        assertSame(DatReturn.PROVIDER_NOT_FOUND, e.type());
        assertThrows(DatException.class, () -> PROVIDER.describe("ofi-no-such-ia", ""));
    }

    /** shm has only FI_EP_RDM endpoints: its IA is listed and opens, DAT running over the provider's association. */
    @Test
    void shmRdmEntryIsListedAndOpens() {
        assertTrue(PROVIDER.info().ias().stream().anyMatch(i -> i.iaName().equals("ofi-shm-shm-rdm")),
                PROVIDER.info().ias().toString());
        assertEquals("FI_EP_RDM", PROVIDER.describe("ofi-shm-shm-rdm", "").providerAttr().providerSpecificAttr()
                .get("fi_ep_type"));
        PROVIDER.open("ofi-shm-shm-rdm", "", 16).close();
    }

    /** tcp;ofi_rxm's RDM entries have socket addresses, whose listen endpoints are not built: refused, with why. */
    @Test
    void rdmEntryOfSocketAddressesIsRefusedWithTheReason() {
        assertTrue(PROVIDER.info().ias().stream().noneMatch(i -> i.iaName().startsWith("ofi-tcp+ofi_rxm")));
        DatException e = assertThrows(DatException.class, () -> PROVIDER.open("ofi-tcp+ofi_rxm-lo-rdm", "", 16));
        assertSame(DatReturn.PROVIDER_NOT_FOUND, e.type());
        assertTrue(e.getMessage().contains("is unavailable: an FI_EP_RDM entry of tcp;ofi_rxm"), e.getMessage());
        // Regression: describe() of an entry without an IP address threw a NullPointerException.
        DatException d = assertThrows(DatException.class, () -> PROVIDER.describe("ofi-tcp+ofi_rxm-lo-rdm", ""));
        assertSame(DatReturn.PROVIDER_NOT_FOUND, d.type());
        assertTrue(d.getMessage().contains("an FI_EP_RDM entry"), d.getMessage());
    }

    @Test
    void badAsyncQueueLengthIsInvalidParameter() {
        DatException e = assertThrows(DatException.class, () -> PROVIDER.open("ofi-tcp-lo", "", 0));
        assertSame(DatReturn.INVALID_PARAMETER, e.type());
    }

    /**
     * Regression: libfabric1 links libpsm2, whose constructor installs a SIGSEGV handler when libfabric is loaded;
     * the JVM's implicit null checks (a SIGSEGV it handles itself) then ended the process. Loading, scanning and
     * opening an IA must leave the JVM's handlers in place: many NullPointerExceptions later the JVM still runs.
     */
    @Test
    void implicitNullChecksSurviveLoadingScanningAndOpening() {
        int caught = 0;
        int sum = 0;
        try (DatIa ia = new OfiProvider().open("ofi-tcp-lo", "", 16)) {
            assertEquals("ofi-tcp-lo", ia.name());
            for (int i = 0; i < 100_000; i++) {
                try {
                    sum += nothing().hashCode();
                } catch (NullPointerException expected) {
                    caught++;
                }
            }
        }
        assertEquals(100_000, caught);
        assertEquals(0, sum);
    }

    private static Object nothing() {
        return null;
    }
}
