// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

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
        MemorySegment fw = attr.asSlice(IbvDeviceAttr.FW_VER, 64);
        long nul = 0;
        while (nul < 64 && fw.get(JAVA_BYTE, nul) != 0) {
            nul++;
        }
        return new DeviceLimits(
                new String(fw.asSlice(0, nul).toArray(JAVA_BYTE), StandardCharsets.US_ASCII),
                attr.get(JAVA_LONG, IbvDeviceAttr.NODE_GUID),
                attr.get(JAVA_LONG, IbvDeviceAttr.MAX_MR_SIZE),
                attr.get(JAVA_INT, IbvDeviceAttr.VENDOR_ID),
                attr.get(JAVA_INT, IbvDeviceAttr.VENDOR_PART_ID),
                attr.get(JAVA_INT, IbvDeviceAttr.HW_VER),
                attr.get(JAVA_INT, IbvDeviceAttr.MAX_QP),
                attr.get(JAVA_INT, IbvDeviceAttr.MAX_QP_WR),
                attr.get(JAVA_INT, IbvDeviceAttr.DEVICE_CAP_FLAGS),
                attr.get(JAVA_INT, IbvDeviceAttr.MAX_SGE),
                attr.get(JAVA_INT, IbvDeviceAttr.MAX_SGE_RD),
                attr.get(JAVA_INT, IbvDeviceAttr.MAX_CQ),
                attr.get(JAVA_INT, IbvDeviceAttr.MAX_CQE),
                attr.get(JAVA_INT, IbvDeviceAttr.MAX_MR),
                attr.get(JAVA_INT, IbvDeviceAttr.MAX_PD),
                attr.get(JAVA_INT, IbvDeviceAttr.MAX_QP_RD_ATOM),
                attr.get(JAVA_INT, IbvDeviceAttr.MAX_RES_RD_ATOM),
                attr.get(JAVA_INT, IbvDeviceAttr.MAX_QP_INIT_RD_ATOM),
                attr.get(JAVA_INT, IbvDeviceAttr.ATOMIC_CAP),
                attr.get(JAVA_INT, IbvDeviceAttr.MAX_MW),
                attr.get(JAVA_INT, IbvDeviceAttr.MAX_SRQ),
                attr.get(JAVA_INT, IbvDeviceAttr.MAX_SRQ_WR),
                attr.get(JAVA_INT, IbvDeviceAttr.MAX_SRQ_SGE),
                Short.toUnsignedInt(attr.get(JAVA_SHORT, IbvDeviceAttr.MAX_PKEYS)),
                Byte.toUnsignedInt(attr.get(JAVA_BYTE, IbvDeviceAttr.PHYS_PORT_CNT)));
    }
}
