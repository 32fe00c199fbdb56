// SPDX-License-Identifier: Apache-2.0
package dat.provider.udapl.internal;

import static dat.provider.udapl.internal.ffm.CStruct.offset;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import dat.api.DatIaAttr;
import dat.api.DatProviderAttr;
import dat.api.DatPzSupport;
import dat.provider.udapl.internal.ffm.DatStructs;
import dat.spi.DatIaInfo;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The DAT 2.0 to DAT 1.2 attribute mapping on structs filled here as a C provider would: the members whose
 * numbering or width differs between the versions, names without their terminator, hostile counts.
 */
class UdaplAttributesTest {

    private static void put(MemorySegment s, String member, int value) {
        s.set(ValueLayout.JAVA_INT, offset(DatStructs.DAT_PROVIDER_ATTR, member), value);
    }

    @Test
    void pzShareableIsOneInDat2AndTwoInDat12() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(DatStructs.DAT_PROVIDER_ATTR);
            put(s, "pz_support", 1);
            assertEquals(DatPzSupport.SHAREABLE, UdaplAttributes.providerAttr(s, "udapl").pzSupport());
            put(s, "pz_support", 0);
            assertEquals(DatPzSupport.UNIQUE, UdaplAttributes.providerAttr(s, "udapl").pzSupport());
        }
    }

    @Test
    void theCProvidersOwnNameAndTheDat2OnlyMembersAreKept() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(DatStructs.DAT_PROVIDER_ATTR);
            s.asSlice(offset(DatStructs.DAT_PROVIDER_ATTR, "provider_name"), 3).copyFrom(
                    MemorySegment.ofArray(new byte[] {'o', 'f', 'a'}));
            put(s, "rmr_scope_supported", 1);
            put(s, "is_signal_safe", 1);
            put(s, "completion_flags_supported", 0x11);
            put(s, "optimal_buffer_alignment", 256);
            DatProviderAttr a = UdaplAttributes.providerAttr(s, "udapl");
            assertEquals("udapl", a.providerName());
            assertEquals("ofa", a.providerSpecificAttr().get("provider_name"));
            assertEquals("1", a.providerSpecificAttr().get("rmr_scope_supported"));
            assertEquals("true", a.providerSpecificAttr().get("is_signal_safe"));
            assertEquals(0x11, a.completionFlagsSupported());
        }
    }

    @Test
    void aProviderClaimingNoWindowsIsNotProbed() {
        try (Arena arena = Arena.ofConfined()) {
            DatIaInfo info = new DatIaInfo("ofa", "",
                    UdaplAttributes.providerAttr(arena.allocate(DatStructs.DAT_PROVIDER_ATTR), "udapl"),
                    UdaplAttributes.iaAttr(arena.allocate(DatStructs.DAT_IA_ATTR), InetAddress.getLoopbackAddress()));
            assertEquals(0, info.iaAttr().maxRmrs());
            // No libdat2 and no IA: the probe (dat_pz_create, dat_rmr_create) must not run for max_rmrs 0.
            assertSame(info, UdaplAttributes.windowsProbed(null, MemorySegment.NULL, info));
        }
    }

    @Test
    void daplVersionIsTheApiJdatOffersAndTheCVersionStaysVisible() {
        // Regression (kit rule required_ia_query_attributesAreCoherent in the rxe guest): the bridge reported OFA's
        // DAT 2.0 as dapl_version, the API version a jDAT consumer programs against, which is DAT 1.2.
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(DatStructs.DAT_PROVIDER_ATTR);
            put(s, "dapl_version_major", 2);
            put(s, "dapl_version_minor", 0);
            DatProviderAttr a = UdaplAttributes.providerAttr(s, "udapl");
            assertEquals(1, a.daplVersionMajor());
            assertEquals(2, a.daplVersionMinor());
            assertEquals("2.0", a.providerSpecificAttr().get("dapl_version"));
        }
    }

    @Test
    void streamMergingMatrixBecomesBitSixTimesRowPlusColumn() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(DatStructs.DAT_PROVIDER_ATTR);
            long base = offset(DatStructs.DAT_PROVIDER_ATTR, "evd_stream_merging_supported");
            s.set(ValueLayout.JAVA_INT, base + 4L * (6 * 2 + 4), 1); // [2][4]: DTO with RMR_BIND
            s.set(ValueLayout.JAVA_INT, base + 4L * 35, 7); // any non-zero DAT_BOOLEAN is true
            assertEquals((1L << 16) | (1L << 35), UdaplAttributes.streamMerging(s));
        }
    }

    @Test
    void seg32SizesAreUnsignedAndAnUnterminatedNameStopsAtItsArray() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(DatStructs.DAT_IA_ATTR);
            s.set(ValueLayout.JAVA_INT, offset(DatStructs.DAT_IA_ATTR, "max_message_size"), -1);
            long name = offset(DatStructs.DAT_IA_ATTR, "adapter_name");
            s.asSlice(name, DatStructs.DAT_NAME_MAX_LENGTH).fill((byte) 'x');
            DatIaAttr a = UdaplAttributes.iaAttr(s, InetAddress.getLoopbackAddress());
            assertEquals(0xFFFF_FFFFL, a.maxMessageSize());
            assertEquals("x".repeat(DatStructs.DAT_NAME_MAX_LENGTH), a.adapterName());
            assertEquals(InetAddress.getLoopbackAddress(), a.iaAddressPtr(), "no ia_address_ptr: the fallback");
        }
    }

    @Test
    void namedAttributesSkipNullNamesAndIgnoreANegativeCount() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment array = arena.allocate(DatStructs.DAT_NAMED_ATTR, 2);
            array.set(ValueLayout.ADDRESS, 0, arena.allocateFrom("DAT_IB_RDMA_READ"));
            array.set(ValueLayout.ADDRESS, 8, MemorySegment.NULL);
            array.set(ValueLayout.ADDRESS, 16, MemorySegment.NULL);
            array.set(ValueLayout.ADDRESS, 24, arena.allocateFrom("orphan value"));
            assertEquals(Map.of("DAT_IB_RDMA_READ", ""), UdaplAttributes.named(array, 2));
            assertEquals(Map.of(), UdaplAttributes.named(array, -5));
            assertEquals(Map.of(), UdaplAttributes.named(MemorySegment.NULL, 3));
        }
    }

    @Test
    void sockaddrOfEachFamily() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment in = arena.allocate(28);
            in.set(ValueLayout.JAVA_SHORT, 0, (short) UdaplAttributes.AF_INET);
            in.asSlice(4, 4).copyFrom(MemorySegment.ofArray(new byte[] {(byte) 192, 0, 2, 1}));
            assertEquals(InetAddress.getByAddress(new byte[] {(byte) 192, 0, 2, 1}), UdaplAttributes.sockaddr(in));
            MemorySegment in6 = arena.allocate(28);
            in6.set(ValueLayout.JAVA_SHORT, 0, (short) UdaplAttributes.AF_INET6);
            in6.set(ValueLayout.JAVA_BYTE, 8 + 15, (byte) 1);
            byte[] one = new byte[16];
            one[15] = 1;
            assertEquals(InetAddress.getByAddress(one), UdaplAttributes.sockaddr(in6));
            MemorySegment other = arena.allocate(28);
            other.set(ValueLayout.JAVA_SHORT, 0, (short) 1); // AF_UNIX
            assertNull(UdaplAttributes.sockaddr(other));
            assertNull(UdaplAttributes.sockaddr(MemorySegment.NULL));
        }
    }
}
