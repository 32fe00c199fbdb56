// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.Dat;
import dat.api.DatCompletionFlags;
import dat.api.DatIaAttr;
import dat.api.DatProviderAttr;
import dat.provider.verbs.internal.ffm.IbvDeviceAttr;
import dat.provider.verbs.internal.ffm.IbvPortAttr;
import dat.provider.verbs.internal.ffm.LibIbverbs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/**
 * The mapping from verbs limits to DAT attributes, on the values an rdma_rxe device reports (rdma-core 44,
 * kernel 6.1), written into native structs the way libibverbs would fill them. No device needed.
 */
class VerbsAttributesTest {

    private static VerbsPort rxePort() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(IbvDeviceAttr.LAYOUT);
            attr.setString(IbvDeviceAttr.FW_VER, "0.0.0");
            IbvDeviceAttr.maxMrSize(attr, -1L);
            IbvDeviceAttr.vendorId(attr, 0xffffff);
            IbvDeviceAttr.maxQp(attr, 0x10000);
            IbvDeviceAttr.maxQpWr(attr, 0x4000);
            IbvDeviceAttr.maxSge(attr, 32);
            IbvDeviceAttr.maxSgeRd(attr, 32);
            IbvDeviceAttr.maxCq(attr, 0x4000);
            IbvDeviceAttr.maxCqe(attr, 0x8000 - 1);
            IbvDeviceAttr.maxMr(attr, 0x40000);
            IbvDeviceAttr.maxPd(attr, 0x10000);
            IbvDeviceAttr.maxQpRdAtom(attr, 128);
            IbvDeviceAttr.maxResRdAtom(attr, 0x3f80);
            IbvDeviceAttr.maxQpInitRdAtom(attr, 128);
            IbvDeviceAttr.maxMw(attr, 0x10000);
            IbvDeviceAttr.deviceCapFlags(attr, LibIbverbs.IBV_DEVICE_SRQ_RESIZE
                    | LibIbverbs.IBV_DEVICE_MEM_WINDOW);
            IbvDeviceAttr.maxSrq(attr, 0x40000);
            IbvDeviceAttr.maxSrqWr(attr, 0x4000);
            IbvDeviceAttr.maxSrqSge(attr, 27);
            IbvDeviceAttr.physPortCnt(attr, (byte) 1);
            MemorySegment port = arena.allocate(IbvPortAttr.LAYOUT);
            IbvPortAttr.state(port, LibIbverbs.IBV_PORT_ACTIVE);
            IbvPortAttr.activeMtu(port, LibIbverbs.IBV_MTU_1024);
            IbvPortAttr.gidTblLen(port, 1024);
            IbvPortAttr.maxMsgSz(port, 0x800000);
            IbvPortAttr.linkLayer(port, (byte) LibIbverbs.IBV_LINK_LAYER_ETHERNET);
            byte[] gid = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xff, (byte) 0xff, 10, 0, 2, 15};
            return new VerbsPort("rxe0", 1, LibIbverbs.IBV_TRANSPORT_IB, DeviceLimits.read(attr),
                    PortLimits.read(port), VerbsDeviceScan.address(gid), VerbsDeviceScan.gidText(gid), true);
        }
    }

    @Test
    void limitsAreReadFromTheirOffsets() {
        VerbsPort port = rxePort();
        assertEquals("0.0.0", port.deviceLimits().fwVer());
        assertEquals(1, port.deviceLimits().physPortCnt());
        assertEquals(27, port.deviceLimits().maxSrqSge());
        assertEquals(0x800000, port.portLimits().maxMsgSz());
        assertEquals(1024, port.portLimits().activeMtuBytes());
        assertEquals("ofa-v2-rxe0-1", port.iaName());
    }

    @Test
    void iaAttributesComeFromTheDeviceAndPort() {
        DatIaAttr ia = VerbsAttributes.iaAttr(rxePort());
        assertEquals("rxe0", ia.adapterName());
        assertEquals(0x10000, ia.maxEps());
        assertEquals(0x4000, ia.maxDtoPerEp());
        assertEquals(32, ia.maxIovSegmentsPerDto());
        assertEquals(0x4000, ia.maxEvds());
        assertEquals(0x7fff, ia.maxEvdQlen());
        assertEquals(0x40000, ia.maxLmrs());
        assertEquals(Long.MAX_VALUE, ia.maxLmrBlockSize(), "all-ones max_mr_size means no limit");
        assertEquals(0x10000, ia.maxPzs());
        assertEquals(0x40000, ia.maxSrqs());
        assertEquals(0x4000, ia.maxRecvPerSrq());
        assertEquals(128, ia.maxRdmaReadPerEpIn());
        assertEquals(128, ia.maxRdmaReadPerEpOut());
        assertEquals(0x3f80, ia.maxRdmaReadIn());
        assertEquals(0x800000, ia.maxMessageSize());
        assertEquals(0x800000, ia.maxRdmaSize());
        assertEquals(0x10000, ia.maxRmrs(), "max_mw: rxe has type 1 windows");
        assertEquals(128, ia.maxRdmaReadOut(), "max_qp_init_rd_atom");
        assertFalse(ia.maxRdmaReadPerEpInGuaranteed());
        assertEquals("27", ia.vendorAttr().get("max_srq_sge"));
        assertEquals("Ethernet", ia.transportAttr().get("link_layer"));
        assertEquals("0000:0000:0000:0000:0000:ffff:0a00:020f", ia.transportAttr().get("gid"));
        assertTrue(ia.iaAddressPtr() instanceof Inet4Address);
        assertEquals("10.0.2.15", ia.iaAddressPtr().getHostAddress());
    }

    @Test
    void providerAttributesDenyWhatIsNotImplemented() {
        DatProviderAttr p = VerbsAttributes.providerAttr(rxePort());
        assertEquals("verbs", p.providerName());
        assertTrue(p.srqSupported(), "max_srq > 0");
        assertEquals(Dat.DAT_SRQ_WATERMARK_LOW, p.srqWatermarksSupported());
        assertEquals(Dat.DAT_SRQ_INFO_OUTSTANDING_DTO_COUNT, p.srqInfoSupported());
        assertEquals(0, p.epRecvInfoSupported(), "an SRQ EP's buffers cannot be counted");
        assertEquals(DatCompletionFlags.SUPPRESS | DatCompletionFlags.BARRIER_FENCE | DatCompletionFlags.EVD_THRESHOLD
                | DatCompletionFlags.SOLICITED_WAIT, p.completionFlagsSupported(), "all but UNSIGNALLED");
        assertEquals(0, p.evdStreamMergingSupported());
        assertTrue(p.isThreadSafe());
        assertFalse(p.rdmaWriteForRdmaReadReq(), "InfiniBand/RoCE read sinks need only local write");
        assertEquals(VerbsAttributes.MAX_PRIVATE_DATA_SIZE, p.maxPrivateDataSize());
    }

    @Test
    void withoutSrqsTheAttributeIsDenied() {
        VerbsPort rxe = rxePort();
        DeviceLimits d = rxe.deviceLimits();
        DeviceLimits noSrq = new DeviceLimits(d.fwVer(), d.nodeGuid(), d.maxMrSize(), d.vendorId(), d.vendorPartId(),
                d.hwVer(), d.maxQp(), d.maxQpWr(), d.deviceCapFlags(), d.maxSge(), d.maxSgeRd(), d.maxCq(),
                d.maxCqe(), d.maxMr(), d.maxPd(), d.maxQpRdAtom(), d.maxResRdAtom(), d.maxQpInitRdAtom(),
                d.atomicCap(), d.maxMw(), 0, 0, 0, d.maxPkeys(), d.physPortCnt());
        VerbsPort port = new VerbsPort("dev", 1, LibIbverbs.IBV_TRANSPORT_IWARP, noSrq, rxe.portLimits(),
                rxe.address(), rxe.gid(), true);
        assertFalse(VerbsAttributes.providerAttr(port).srqSupported());
        assertEquals(0, VerbsAttributes.iaAttr(port).maxEpPerSrq());
        assertTrue(VerbsAttributes.providerAttr(port).rdmaWriteForRdmaReadReq(), "iWARP");
        assertEquals(0, VerbsAttributes.providerAttr(port).completionFlagsSupported()
                & DatCompletionFlags.SOLICITED_WAIT, "iWARP carries no immediate data, so no solicited wait");
    }

    @Test
    void windowsNeedTheCapabilityAndTheDriversVerbs() {
        VerbsPort rxe = rxePort();
        DeviceLimits d = rxe.deviceLimits();
        DeviceLimits noWindows = new DeviceLimits(d.fwVer(), d.nodeGuid(), d.maxMrSize(), d.vendorId(),
                d.vendorPartId(), d.hwVer(), d.maxQp(), d.maxQpWr(),
                d.deviceCapFlags() & ~LibIbverbs.IBV_DEVICE_MEM_WINDOW, d.maxSge(), d.maxSgeRd(), d.maxCq(),
                d.maxCqe(), d.maxMr(), d.maxPd(), d.maxQpRdAtom(), d.maxResRdAtom(), d.maxQpInitRdAtom(),
                d.atomicCap(), d.maxMw(), d.maxSrq(), d.maxSrqWr(), d.maxSrqSge(), d.maxPkeys(), d.physPortCnt());
        VerbsPort noCap = new VerbsPort("dev", 1, rxe.transportType(), noWindows, rxe.portLimits(), rxe.address(),
                rxe.gid(), true);
        assertEquals(0, VerbsAttributes.iaAttr(noCap).maxRmrs(), "max_mw without IBV_DEVICE_MEM_WINDOW");
        VerbsPort noVerbs = new VerbsPort("dev", 1, rxe.transportType(), d, rxe.portLimits(), rxe.address(),
                rxe.gid(), false);
        assertEquals(0, VerbsAttributes.iaAttr(noVerbs).maxRmrs(), "a driver without alloc_mw/bind_mw");
    }

    @Test
    void gidHelpers() throws Exception {
        byte[] linkLocal = InetAddress.getByName("fe80::5054:ff:fe12:3456").getAddress();
        assertFalse(VerbsDeviceScan.isIpv4Mapped(linkLocal));
        assertEquals("fe80:0000:0000:0000:5054:00ff:fe12:3456", VerbsDeviceScan.gidText(linkLocal));
        assertArrayEquals(new byte[16], VerbsDeviceScan.address(null).getAddress());
        assertArrayEquals(new int[] {16, 35}, VerbsAttributes.firmwareVersion("16.35.2000"));
        assertArrayEquals(new int[] {0, 0}, VerbsAttributes.firmwareVersion(""));
    }
}
