// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;

/**
 * One {@code fi_info} entry the scan found, and the IA it is: the names, the address, the limits the attributes come
 * from, and why it cannot be opened, if it cannot.
 *
 * @param iaName the IA name ({@link OfiConfig#iaName})
 * @param provider {@code fabric_attr->prov_name}
 * @param fabric {@code fabric_attr->name}
 * @param domain {@code domain_attr->name}
 * @param address the source address, {@code null} when it is not an IP socket address
 * @param info a copy of the entry ({@code fi_dupinfo}), kept for the JVM's life to open the IA from
 * @param limits what the entry says
 * @param unusable why DAT cannot run over it, or {@code null}
 */
record OfiEntry(String iaName, String provider, String fabric, String domain, InetAddress address, MemorySegment info,
                Limits limits, String unusable) {

    /**
     * {@return whether the entry is libfabric's verbs provider} Its RMA runs on the HCA: a registration's close is
     * done when it returns (an RDMA write into the region fails at the HCA from then on), and a failed completion
     * carries its {@code ibv_wc_status} in {@code prov_errno}.
     */
    boolean ibVerbs() {
        return "verbs".equals(provider);
    }

    /**
     * The numbers of an {@code fi_info} entry that DAT attributes and checks are made of.
     *
     * @param epType {@code ep_attr->type}
     * @param addrFormat {@code addr_format}
     * @param caps {@code caps}
     * @param mode {@code mode}
     * @param mrMode {@code domain_attr->mr_mode}
     * @param mrKeySize {@code domain_attr->mr_key_size}
     * @param txSize {@code tx_attr->size}
     * @param rxSize {@code rx_attr->size}
     * @param txIovLimit {@code tx_attr->iov_limit}
     * @param rxIovLimit {@code rx_attr->iov_limit}
     * @param rmaIovLimit {@code tx_attr->rma_iov_limit}
     * @param injectSize {@code tx_attr->inject_size}
     * @param maxMsgSize {@code ep_attr->max_msg_size}, {@link Long#MAX_VALUE} for larger values
     * @param epCnt {@code domain_attr->ep_cnt}
     * @param cqCnt {@code domain_attr->cq_cnt}
     * @param maxEpSrxCtx {@code domain_attr->max_ep_srx_ctx}
     * @param mrCnt {@code domain_attr->mr_cnt}
     * @param threading {@code domain_attr->threading}
     * @param dataProgress {@code domain_attr->data_progress}
     * @param cmDataSize {@code FI_OPT_CM_DATA_SIZE} of a passive endpoint, -1 when not asked
     */
    record Limits(int epType, int addrFormat, long caps, long mode, int mrMode, long mrKeySize, long txSize,
                  long rxSize, long txIovLimit, long rxIovLimit, long rmaIovLimit, long injectSize, long maxMsgSize,
                  long epCnt, long cqCnt, long maxEpSrxCtx, long mrCnt, int threading, int dataProgress,
                  long cmDataSize) {
    }
}
