// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import dat.provider.verbs.internal.ffm.IbvDeviceAttr;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

/**
 * The fields of {@code struct ibv_device_attr} a DAT IA's attributes come from, copied out of native memory.
 *
 * @param fwVer {@code fw_ver}
 * @param nodeGuid {@code node_guid}, as stored (network byte order)
 * @param maxMrSize {@code max_mr_size} (unsigned)
 * @param vendorId {@code vendor_id}
 * @param vendorPartId {@code vendor_part_id}
 * @param hwVer {@code hw_ver}
 * @param maxQp {@code max_qp}
 * @param maxQpWr {@code max_qp_wr}
 * @param deviceCapFlags {@code device_cap_flags}
 * @param maxSge {@code max_sge}
 * @param maxSgeRd {@code max_sge_rd}
 * @param maxCq {@code max_cq}
 * @param maxCqe {@code max_cqe}
 * @param maxMr {@code max_mr}
 * @param maxPd {@code max_pd}
 * @param maxQpRdAtom {@code max_qp_rd_atom}: RDMA reads a QP accepts as target
 * @param maxResRdAtom {@code max_res_rd_atom}: RDMA reads the device accepts as target
 * @param maxQpInitRdAtom {@code max_qp_init_rd_atom}: RDMA reads a QP issues
 * @param atomicCap {@code atomic_cap}
 * @param maxMw {@code max_mw}
 * @param maxSrq {@code max_srq}
 * @param maxSrqWr {@code max_srq_wr}
 * @param maxSrqSge {@code max_srq_sge}
 * @param physPortCnt {@code phys_port_cnt}
 */
record DeviceLimits(String fwVer, long nodeGuid, long maxMrSize, int vendorId, int vendorPartId, int hwVer,
                    int maxQp, int maxQpWr, int deviceCapFlags, int maxSge, int maxSgeRd, int maxCq, int maxCqe,
                    int maxMr, int maxPd, int maxQpRdAtom, int maxResRdAtom, int maxQpInitRdAtom, int atomicCap,
                    int maxMw, int maxSrq, int maxSrqWr, int maxSrqSge, int maxPkeys, int physPortCnt) {

    /**
     * {@return the limits read from {@code attr}}
     *
     * @param attr a filled {@link IbvDeviceAttr}
     */
    static DeviceLimits read(MemorySegment attr) {
        MemorySegment fw = IbvDeviceAttr.fwVer(attr);
        long nul = 0;
        while (nul < 64 && fw.get(JAVA_BYTE, nul) != 0) {
            nul++;
        }
        return new DeviceLimits(
                new String(fw.asSlice(0, nul).toArray(JAVA_BYTE), StandardCharsets.US_ASCII),
                IbvDeviceAttr.nodeGuid(attr),
                IbvDeviceAttr.maxMrSize(attr),
                IbvDeviceAttr.vendorId(attr),
                IbvDeviceAttr.vendorPartId(attr),
                IbvDeviceAttr.hwVer(attr),
                IbvDeviceAttr.maxQp(attr),
                IbvDeviceAttr.maxQpWr(attr),
                IbvDeviceAttr.deviceCapFlags(attr),
                IbvDeviceAttr.maxSge(attr),
                IbvDeviceAttr.maxSgeRd(attr),
                IbvDeviceAttr.maxCq(attr),
                IbvDeviceAttr.maxCqe(attr),
                IbvDeviceAttr.maxMr(attr),
                IbvDeviceAttr.maxPd(attr),
                IbvDeviceAttr.maxQpRdAtom(attr),
                IbvDeviceAttr.maxResRdAtom(attr),
                IbvDeviceAttr.maxQpInitRdAtom(attr),
                IbvDeviceAttr.atomicCap(attr),
                IbvDeviceAttr.maxMw(attr),
                IbvDeviceAttr.maxSrq(attr),
                IbvDeviceAttr.maxSrqWr(attr),
                IbvDeviceAttr.maxSrqSge(attr),
                Short.toUnsignedInt(IbvDeviceAttr.maxPkeys(attr)),
                Byte.toUnsignedInt(IbvDeviceAttr.physPortCnt(attr)));
    }
}
