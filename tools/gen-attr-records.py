#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Generates the attribute records of dat.api (DatProviderAttr, DatIaAttr, DatEpAttr) with their builders.

The tables below are the single place where a DAT attribute's Java name, type, default and documentation
live. Run from the repository root after editing them: python3 tools/gen-attr-records.py
An argument names another output directory (repo-checks' GeneratorDriftTest writes there and compares).
"""
import os
import re
import sys
import textwrap

OUT = sys.argv[1] if len(sys.argv) > 1 else "dat.api/src/main/java/dat/api"


def snake(name):
    return re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), name)


PROVIDER = ("DatProviderAttr", "dat_ia_query", "{@code DAT_PROVIDER_ATTR}: what a provider supports, as "
            "{@code dat_ia_query} reports it and as selection queries see it.", [
    ("String", "providerName", '""', "{@code provider_name}"),
    ("int", "providerVersionMajor", "0", "{@code provider_version_major}"),
    ("int", "providerVersionMinor", "0", "{@code provider_version_minor}"),
    ("int", "daplVersionMajor", "Dat.DAT_VERSION_MAJOR", "{@code dapl_version_major}: the DAT API major version"),
    ("int", "daplVersionMinor", "Dat.DAT_VERSION_MINOR", "{@code dapl_version_minor}: the DAT API minor version"),
    ("int", "lmrMemTypesSupported", "Dat.DAT_MEM_TYPE_VIRTUAL", "{@code lmr_mem_types_supported}: DAT_MEM_TYPE values"),
    ("DatIovOwnership", "iovOwnershipOnReturn", "DatIovOwnership.PROVIDER_NOMOD",
     "{@code iov_ownership_on_return}: when an IOV may be reused after a post returns"),
    ("int", "datQosSupported", "0", "{@code dat_qos_supported}: mask of {@link DatQos} values"),
    ("int", "completionFlagsSupported", "0",
     "{@code completion_flags_supported}: the {@link DatCompletionFlags} that work"),
    ("boolean", "isThreadSafe", "false", "{@code is_thread_safe}: every call may be made from any thread at once"),
    ("int", "maxPrivateDataSize", "Dat.DAT_MIN_PRIVATE_DATA_SIZE",
     "{@code max_private_data_size}: bytes of private data a connect, accept or reject carries"),
    ("boolean", "supportsMultipath", "false", "{@code supports_multipath}"),
    ("DatEpCreator", "epCreator", "DatEpCreator.NEVER", "{@code ep_creator}: whether PSPs create EPs"),
    ("DatPzSupport", "pzSupport", "DatPzSupport.UNIQUE", "{@code pz_support}"),
    ("int", "optimalBufferAlignment", "Dat.DAT_OPTIMAL_ALIGNMENT",
     "{@code optimal_buffer_alignment}: the buffer alignment for best performance; divides 256"),
    ("long", "evdStreamMergingSupported", "0",
     "{@code evd_stream_merging_supported}: bit {@code 6 * a + b} set when event streams a and b (0 SW, 1 CR, "
     "2 DTO, 3 CONN, 4 RMR_BIND, 5 ASYNC) may share an EVD"),
    ("boolean", "srqSupported", "false", "{@code srq_supported}"),
    ("int", "srqWatermarksSupported", "0",
     "{@code srq_watermarks_supported}: {@link Dat#DAT_SRQ_WATERMARK_LOW}, {@code _SOFT_HIGH}, {@code _HARD_HIGH} bits"),
    ("boolean", "srqEpPzDifferenceSupported", "false",
     "{@code srq_ep_pz_difference_supported}: EPs on an SRQ may have another PZ than the SRQ"),
    ("int", "srqInfoSupported", "0",
     "{@code srq_info_supported}: {@link Dat#DAT_SRQ_INFO_AVAILABLE_DTO_COUNT} and/or "
     "{@link Dat#DAT_SRQ_INFO_OUTSTANDING_DTO_COUNT}"),
    ("int", "epRecvInfoSupported", "0",
     "{@code ep_recv_info_supported}: {@link Dat#DAT_EP_RECV_INFO_NBUFS_ALLOCATED} and/or "
     "{@link Dat#DAT_EP_RECV_INFO_BUFS_ALLOC_SPAN}"),
    ("boolean", "lmrSyncReq", "false", "{@code lmr_sync_req}: consumers must call {@code dat_lmr_sync_rdma_*}"),
    ("boolean", "dtoAsyncReturnGuaranteed", "false", "{@code dto_async_return_guaranteed}"),
    ("boolean", "rdmaWriteForRdmaReadReq", "false",
     "{@code rdma_write_for_rdma_read_req}: an RDMA read target needs remote write privilege"),
    ("java.util.Map<String, String>", "providerSpecificAttr", "java.util.Map.of()",
     "{@code provider_specific_attr}: named provider attributes"),
])

IA = ("DatIaAttr", "dat_ia_query", "{@code DAT_IA_ATTR}: the limits and identity of an IA, as "
      "{@code dat_ia_query} reports them and as selection queries see them.", [
    ("String", "adapterName", '""', "{@code adapter_name}"),
    ("String", "vendorName", '""', "{@code vendor_name}"),
    ("int", "hardwareVersionMajor", "0", "{@code hardware_version_major}"),
    ("int", "hardwareVersionMinor", "0", "{@code hardware_version_minor}"),
    ("int", "firmwareVersionMajor", "0", "{@code firmware_version_major}"),
    ("int", "firmwareVersionMinor", "0", "{@code firmware_version_minor}"),
    ("java.net.InetAddress", "iaAddressPtr", "java.net.InetAddress.getLoopbackAddress()",
     "{@code ia_address_ptr}: the address peers connect to"),
    ("int", "maxEps", "0", "{@code max_eps}"),
    ("int", "maxDtoPerEp", "0", "{@code max_dto_per_ep}"),
    ("int", "maxRdmaReadPerEpIn", "0", "{@code max_rdma_read_per_ep_in}"),
    ("int", "maxRdmaReadPerEpOut", "0", "{@code max_rdma_read_per_ep_out}"),
    ("int", "maxEvds", "0", "{@code max_evds}"),
    ("int", "maxEvdQlen", "0", "{@code max_evd_qlen}"),
    ("int", "maxIovSegmentsPerDto", "0", "{@code max_iov_segments_per_dto}"),
    ("int", "maxLmrs", "0", "{@code max_lmrs}"),
    ("long", "maxLmrBlockSize", "0", "{@code max_lmr_block_size}"),
    ("long", "maxLmrVirtualAddress", "0", "{@code max_lmr_virtual_address}"),
    ("int", "maxPzs", "0", "{@code max_pzs}"),
    ("long", "maxMessageSize", "0", "{@code max_message_size}"),
    ("long", "maxRdmaSize", "0", "{@code max_rdma_size}"),
    ("int", "maxRmrs", "0", "{@code max_rmrs}: 0 when the IA has no RMRs"),
    ("long", "maxRmrTargetAddress", "0", "{@code max_rmr_target_address}"),
    ("int", "maxSrqs", "0", "{@code max_srqs}"),
    ("int", "maxEpPerSrq", "0", "{@code max_ep_per_srq}"),
    ("int", "maxRecvPerSrq", "0", "{@code max_recv_per_srq}"),
    ("int", "maxIovSegmentsPerRdmaRead", "0", "{@code max_iov_segments_per_rdma_read}"),
    ("int", "maxIovSegmentsPerRdmaWrite", "0", "{@code max_iov_segments_per_rdma_write}"),
    ("int", "maxRdmaReadIn", "0", "{@code max_rdma_read_in}"),
    ("int", "maxRdmaReadOut", "0", "{@code max_rdma_read_out}"),
    ("boolean", "maxRdmaReadPerEpInGuaranteed", "false", "{@code max_rdma_read_per_ep_in_guaranteed}"),
    ("boolean", "maxRdmaReadPerEpOutGuaranteed", "false", "{@code max_rdma_read_per_ep_out_guaranteed}"),
    ("java.util.Map<String, String>", "transportAttr", "java.util.Map.of()", "{@code transport_attr}"),
    ("java.util.Map<String, String>", "vendorAttr", "java.util.Map.of()", "{@code vendor_attr}"),
])

EP = ("DatEpAttr", "dat_ep_create", "{@code DAT_EP_ATTR}: what an EP asks for at {@code dat_ep_create} and "
      "what it got ({@code dat_ep_query}). The builder starts from small portable values every provider "
      "accepts; pass {@code null} to {@link DatIa#createEp} for the provider's own defaults.", [
    ("DatServiceType", "serviceType", "DatServiceType.RC", "{@code service_type}"),
    ("long", "maxMessageSize", "65536", "{@code max_message_size}"),
    ("long", "maxRdmaSize", "65536", "{@code max_rdma_size}"),
    ("DatQos", "qos", "DatQos.BEST_EFFORT", "{@code qos}"),
    ("int", "recvCompletionFlags", "DatCompletionFlags.DEFAULT",
     "{@code recv_completion_flags}: DEFAULT, SOLICITED_WAIT or EVD_THRESHOLD; UNSIGNALLED (DAT's "
     "default for an SRQ EP) completes every receive signalled"),
    ("int", "requestCompletionFlags", "DatCompletionFlags.DEFAULT",
     "{@code request_completion_flags}: include UNSIGNALLED to allow unsignalled posts"),
    ("int", "maxRecvDtos", "16", "{@code max_recv_dtos}: receive queue depth (ignored with an SRQ)"),
    ("int", "maxRequestDtos", "16", "{@code max_request_dtos}: request queue depth"),
    ("int", "maxRecvIov", "1", "{@code max_recv_iov}"),
    ("int", "maxRequestIov", "1", "{@code max_request_iov}"),
    ("int", "maxRdmaReadIn", "1", "{@code max_rdma_read_in}"),
    ("int", "maxRdmaReadOut", "1", "{@code max_rdma_read_out}"),
    ("int", "srqSoftHw", "Dat.DAT_HW_DEFAULT", "{@code srq_soft_hw}: the EP soft high watermark"),
    ("int", "maxRdmaReadIov", "1", "{@code max_rdma_read_iov}"),
    ("int", "maxRdmaWriteIov", "1", "{@code max_rdma_write_iov}"),
    ("java.util.Map<String, String>", "epTransportSpecific", "java.util.Map.of()", "{@code ep_transport_specific}"),
    ("java.util.Map<String, String>", "epProviderSpecific", "java.util.Map.of()", "{@code ep_provider_specific}"),
])


def gen(spec):
    name, call, doc, fields = spec
    # Types named by their package in the tables are imported, and written by their simple names.
    imports = sorted({"java.util.Objects"} | {m for t, _, _, _ in fields
                                             for m in re.findall(r"java\.[a-z.]+\.[A-Z]\w*", t)})
    fields = [(re.sub(r"java\.[a-z.]+\.([A-Z]\w*)", r"\1", t), n, re.sub(r"java\.[a-z.]+\.([A-Z]\w*)", r"\1", dflt), d)
              for t, n, dflt, d in fields]
    comps = ",\n".join("        %s %s" % (t, n) for t, n, _, _ in fields)
    params = "\n".join(textwrap.fill("@param %s %s" % (n, d), 112, initial_indent=" * ",
                                      subsequent_indent=" *     ") for _, n, _, d in fields)
    doc = textwrap.fill(doc, 112, initial_indent="", subsequent_indent=" * ")
    checks = []
    for t, n, _, _ in fields:
        if t[0].isupper() and "." not in t:
            checks.append('        Objects.requireNonNull(%s, "%s");' % (n, snake(n)))
        if t.startswith("Map<"):
            checks.append("        %s = Map.copyOf(%s);" % (n, n))
    bfields = "\n".join("        private %s %s = %s;" % (t, n, dflt) for t, n, dflt, _ in fields)
    # Javadoc wants a summary sentence before the tags: the DAT field's name, which every description opens with.
    setters = "\n\n".join('''        /**
         * Sets %s.
         *
%s
         * @return this builder
         */
        public Builder %s(%s value) {
            this.%s = value;
            return this;
        }''' % (re.match(r"\{@code \w+\}", d).group(0),
                 textwrap.fill("@param value " + d, 108, initial_indent="         * ",
                               subsequent_indent="         *     "), n, t, n) for t, n, _, d in fields)
    copy = "\n".join("            b.%s = %s;" % (n, n) for _, n, _, _ in fields)
    args = textwrap.fill(", ".join(n for _, n, _, _ in fields), 118,
                         initial_indent=" " * len("            return new %s(" % name),
                         subsequent_indent=" " * 20).lstrip()
    src = '''// SPDX-License-Identifier: Apache-2.0
package dat.api;

%s

/**
 * %s
 *
 * <p>Component names are the DAT field names in camel case; {@link DatFields} gives them back in DAT's own
 * spelling. Generated by {@code tools/gen-attr-records.py} from its field table.
 *
%s
 */
public record %s(
%s) {

    /** Checks that no reference is null and makes the maps immutable. */
    public %s {
%s
    }

    /** {@return a builder with the documented defaults} */
    public static Builder builder() {
        return new Builder();
    }

    /** {@return a builder holding this record's values} */
    public Builder toBuilder() {
        Builder b = new Builder();
%s
        return b;
    }

    /** Builds a {@link %s} field by field. */
    public static final class Builder {
%s

        private Builder() {
        }

%s

        /** {@return the record} */
        public %s build() {
            return new %s(%s);
        }
    }
}
''' % ("\n".join("import %s;" % i for i in imports), doc, params, name, comps, name, "\n".join(checks),
       copy.replace("b.", "b."), name, bfields, setters, name, name, args)
    # toBuilder copies from the record's components
    src = src.replace(copy, "\n".join("        b.%s = %s;" % (n, n) for _, n, _, _ in fields))
    with open(os.path.join(OUT, name + ".java"), "w") as f:
        f.write(src)


for spec in (PROVIDER, IA, EP):
    gen(spec)
