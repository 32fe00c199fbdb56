#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the struct classes of dat.provider.ofi.internal.ffm from the table below (libfabric 1.17's headers, LP64).

Usage: tools/gen-ofi-ffm.py [OUT_DIR] (default: the package's source directory; GeneratorDriftTest passes a
temporary one and compares).

Each class holds the C layout (member names are the C names, padding as the C compiler inserts it), the member
offsets, and a typed getter and setter per member bound to the member's own layout; OfiLayoutOffsetTest checks every
one against gcc. Run it from the repository root after editing the table: tools/gen-ofi-ffm.py
"""
import pathlib
import sys

SOURCES = "dat.provider.ofi/src/main/java/dat/provider/ofi/internal/ffm"
OUT = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else SOURCES)

# kind: (java layout expr, size, align, java type, accessor layout class, c type shown)
KINDS = {
    "ptr": ("ADDRESS", 8, 8, "MemorySegment", "AddressLayout"),
    "u64": ("JAVA_LONG", 8, 8, "long", "ValueLayout.OfLong"),
    "size": ("JAVA_LONG", 8, 8, "long", "ValueLayout.OfLong"),
    "u32": ("JAVA_INT", 4, 4, "int", "ValueLayout.OfInt"),
    "int": ("JAVA_INT", 4, 4, "int", "ValueLayout.OfInt"),
    "enum": ("JAVA_INT", 4, 4, "int", "ValueLayout.OfInt"),
    "u16": ("JAVA_SHORT", 2, 2, "short", "ValueLayout.OfShort"),
}

STRUCTS = [
    ("Fid", "struct fid", "the header of every libfabric object: its class, context and ops table",
     [("fclass", "size"), ("context", "ptr"), ("ops", "ptr")]),
    ("FiOps", "struct fi_ops", "the ops table every fid has: close, bind, control",
     [("size", "size"), ("close", "ptr"), ("bind", "ptr"), ("control", "ptr"), ("ops_open", "ptr"),
      ("tostr", "ptr"), ("ops_set", "ptr")]),
    ("FiTxAttr", "struct fi_tx_attr", "transmit context attributes of an fi_info",
     [("caps", "u64"), ("mode", "u64"), ("op_flags", "u64"), ("msg_order", "u64"), ("comp_order", "u64"),
      ("inject_size", "size"), ("size", "size"), ("iov_limit", "size"), ("rma_iov_limit", "size"),
      ("tclass", "u32")]),
    ("FiRxAttr", "struct fi_rx_attr", "receive context attributes of an fi_info",
     [("caps", "u64"), ("mode", "u64"), ("op_flags", "u64"), ("msg_order", "u64"), ("comp_order", "u64"),
      ("total_buffered_recv", "size"), ("size", "size"), ("iov_limit", "size")]),
    ("FiEpAttr", "struct fi_ep_attr", "endpoint attributes of an fi_info",
     [("type", "enum"), ("protocol", "u32"), ("protocol_version", "u32"), ("max_msg_size", "size"),
      ("msg_prefix_size", "size"), ("max_order_raw_size", "size"), ("max_order_war_size", "size"),
      ("max_order_waw_size", "size"), ("mem_tag_format", "u64"), ("tx_ctx_cnt", "size"), ("rx_ctx_cnt", "size"),
      ("auth_key_size", "size"), ("auth_key", "ptr")]),
    ("FiDomainAttr", "struct fi_domain_attr", "domain attributes of an fi_info",
     [("domain", "ptr"), ("name", "ptr"), ("threading", "enum"), ("control_progress", "enum"),
      ("data_progress", "enum"), ("resource_mgmt", "enum"), ("av_type", "enum"), ("mr_mode", "int"),
      ("mr_key_size", "size"), ("cq_data_size", "size"), ("cq_cnt", "size"), ("ep_cnt", "size"),
      ("tx_ctx_cnt", "size"), ("rx_ctx_cnt", "size"), ("max_ep_tx_ctx", "size"), ("max_ep_rx_ctx", "size"),
      ("max_ep_stx_ctx", "size"), ("max_ep_srx_ctx", "size"), ("cntr_cnt", "size"), ("mr_iov_limit", "size"),
      ("caps", "u64"), ("mode", "u64"), ("auth_key", "ptr"), ("auth_key_size", "size"), ("max_err_data", "size"),
      ("mr_cnt", "size"), ("tclass", "u32")]),
    ("FiFabricAttr", "struct fi_fabric_attr", "fabric attributes of an fi_info",
     [("fabric", "ptr"), ("name", "ptr"), ("prov_name", "ptr"), ("prov_version", "u32"), ("api_version", "u32")]),
    ("FiInfo", "struct fi_info", "one entry of fi_getinfo's list: what a provider offers on one fabric and domain",
     [("next", "ptr"), ("caps", "u64"), ("mode", "u64"), ("addr_format", "u32"), ("src_addrlen", "size"),
      ("dest_addrlen", "size"), ("src_addr", "ptr"), ("dest_addr", "ptr"), ("handle", "ptr"), ("tx_attr", "ptr"),
      ("rx_attr", "ptr"), ("ep_attr", "ptr"), ("domain_attr", "ptr"), ("fabric_attr", "ptr"), ("nic", "ptr")]),
    ("FidFabric", "struct fid_fabric", "an open fabric",
     [("fid", "ptr"), ("fid.context", "ptr"), ("fid.ops", "ptr"), ("ops", "ptr"), ("api_version", "u32")]),
    ("FiOpsFabric", "struct fi_ops_fabric", "the fabric's ops: domain, passive endpoint, event queue, wait set",
     [("size", "size"), ("domain", "ptr"), ("passive_ep", "ptr"), ("eq_open", "ptr"), ("wait_open", "ptr"),
      ("trywait", "ptr"), ("domain2", "ptr")]),
    ("FidDomain", "struct fid_domain", "an open domain",
     [("fid", "ptr"), ("fid.context", "ptr"), ("fid.ops", "ptr"), ("ops", "ptr"), ("mr", "ptr")]),
    ("FiOpsDomain", "struct fi_ops_domain", "the domain's ops: CQ, endpoint, shared receive context",
     [("size", "size"), ("av_open", "ptr"), ("cq_open", "ptr"), ("endpoint", "ptr"), ("scalable_ep", "ptr"),
      ("cntr_open", "ptr"), ("poll_open", "ptr"), ("stx_ctx", "ptr"), ("srx_ctx", "ptr"), ("query_atomic", "ptr"),
      ("query_collective", "ptr"), ("endpoint2", "ptr")]),
    ("FiOpsMr", "struct fi_ops_mr", "the domain's memory registration ops",
     [("size", "size"), ("reg", "ptr"), ("regv", "ptr"), ("regattr", "ptr")]),
    ("FidMr", "struct fid_mr", "a memory region: its local descriptor and remote key",
     [("fid", "ptr"), ("fid.context", "ptr"), ("fid.ops", "ptr"), ("mem_desc", "ptr"), ("key", "u64")]),
    ("FidEp", "struct fid_ep", "an endpoint (or a shared receive context): its ops tables",
     [("fid", "ptr"), ("fid.context", "ptr"), ("fid.ops", "ptr"), ("ops", "ptr"), ("cm", "ptr"), ("msg", "ptr"),
      ("rma", "ptr"), ("tagged", "ptr"), ("atomic", "ptr"), ("collective", "ptr")]),
    ("FidPep", "struct fid_pep", "a passive endpoint (a listener)",
     [("fid", "ptr"), ("fid.context", "ptr"), ("fid.ops", "ptr"), ("ops", "ptr"), ("cm", "ptr")]),
    ("FiOpsEp", "struct fi_ops_ep", "the endpoint's control ops",
     [("size", "size"), ("cancel", "ptr"), ("getopt", "ptr"), ("setopt", "ptr"), ("tx_ctx", "ptr"),
      ("rx_ctx", "ptr"), ("rx_size_left", "ptr"), ("tx_size_left", "ptr")]),
    ("FiOpsCm", "struct fi_ops_cm", "the endpoint's connection management ops",
     [("size", "size"), ("setname", "ptr"), ("getname", "ptr"), ("getpeer", "ptr"), ("connect", "ptr"),
      ("listen", "ptr"), ("accept", "ptr"), ("reject", "ptr"), ("shutdown", "ptr"), ("join", "ptr")]),
    ("FiOpsMsg", "struct fi_ops_msg", "the endpoint's message ops",
     [("size", "size"), ("recv", "ptr"), ("recvv", "ptr"), ("recvmsg", "ptr"), ("send", "ptr"), ("sendv", "ptr"),
      ("sendmsg", "ptr"), ("inject", "ptr"), ("senddata", "ptr"), ("injectdata", "ptr")]),
    ("FiOpsRma", "struct fi_ops_rma", "the endpoint's RMA ops",
     [("size", "size"), ("read", "ptr"), ("readv", "ptr"), ("readmsg", "ptr"), ("write", "ptr"),
      ("writev", "ptr"), ("writemsg", "ptr"), ("inject", "ptr"), ("writedata", "ptr"), ("injectdata", "ptr")]),
    ("Iovec", "struct iovec", "one local buffer of a message",
     [("iov_base", "ptr"), ("iov_len", "size")]),
    ("FiMsg", "struct fi_msg", "a send or receive for fi_sendmsg/fi_recvmsg",
     [("msg_iov", "ptr"), ("desc", "ptr"), ("iov_count", "size"), ("addr", "u64"), ("context", "ptr"),
      ("data", "u64")]),
    ("FiOpsTagged", "struct fi_ops_tagged", "the endpoint's tagged message ops (fi_tsendmsg, fi_trecvmsg, ...)",
     [("size", "size"), ("recv", "ptr"), ("recvv", "ptr"), ("recvmsg", "ptr"), ("send", "ptr"), ("sendv", "ptr"),
      ("sendmsg", "ptr"), ("inject", "ptr"), ("senddata", "ptr"), ("injectdata", "ptr")]),
    ("FiMsgTagged", "struct fi_msg_tagged", "a tagged send or receive for fi_tsendmsg/fi_trecvmsg",
     [("msg_iov", "ptr"), ("desc", "ptr"), ("iov_count", "size"), ("addr", "u64"), ("tag", "u64"),
      ("ignore", "u64"), ("context", "ptr"), ("data", "u64")]),
    ("FiAvAttr", "struct fi_av_attr", "address vector attributes",
     [("type", "enum"), ("rx_ctx_bits", "int"), ("count", "size"), ("ep_per_node", "size"), ("name", "ptr"),
      ("map_addr", "ptr"), ("flags", "u64")]),
    ("FidAv", "struct fid_av", "an address vector: the peers' addresses an RDM endpoint sends to",
     [("fid", "ptr"), ("fid.context", "ptr"), ("fid.ops", "ptr"), ("ops", "ptr")]),
    ("FiOpsAv", "struct fi_ops_av", "the address vector's ops",
     [("size", "size"), ("insert", "ptr"), ("insertsvc", "ptr"), ("insertsym", "ptr"), ("remove", "ptr"),
      ("lookup", "ptr"), ("straddr", "ptr"), ("av_set", "ptr")]),
    ("FiRmaIov", "struct fi_rma_iov", "one remote buffer of an RMA",
     [("addr", "u64"), ("len", "size"), ("key", "u64")]),
    ("FiMsgRma", "struct fi_msg_rma", "an RDMA read or write for fi_readmsg/fi_writemsg",
     [("msg_iov", "ptr"), ("desc", "ptr"), ("iov_count", "size"), ("addr", "u64"), ("rma_iov", "ptr"),
      ("rma_iov_count", "size"), ("context", "ptr"), ("data", "u64")]),
    ("FiEqAttr", "struct fi_eq_attr", "event queue attributes",
     [("size", "size"), ("flags", "u64"), ("wait_obj", "enum"), ("signaling_vector", "int"), ("wait_set", "ptr")]),
    ("FidEq", "struct fid_eq", "an event queue",
     [("fid", "ptr"), ("fid.context", "ptr"), ("fid.ops", "ptr"), ("ops", "ptr")]),
    ("FiOpsEq", "struct fi_ops_eq", "the event queue's ops",
     [("size", "size"), ("read", "ptr"), ("readerr", "ptr"), ("write", "ptr"), ("sread", "ptr"),
      ("strerror", "ptr")]),
    ("FiEqCmEntry", "struct fi_eq_cm_entry", "a connection event, followed by the peer's cm_data",
     [("fid", "ptr"), ("info", "ptr")]),
    ("FiEqErrEntry", "struct fi_eq_err_entry", "an event queue error (a refused or failed connection)",
     [("fid", "ptr"), ("context", "ptr"), ("data", "u64"), ("err", "int"), ("prov_errno", "int"),
      ("err_data", "ptr"), ("err_data_size", "size")]),
    ("FiCqAttr", "struct fi_cq_attr", "completion queue attributes",
     [("size", "size"), ("flags", "u64"), ("format", "enum"), ("wait_obj", "enum"), ("signaling_vector", "int"),
      ("wait_cond", "enum"), ("wait_set", "ptr")]),
    ("FidCq", "struct fid_cq", "a completion queue",
     [("fid", "ptr"), ("fid.context", "ptr"), ("fid.ops", "ptr"), ("ops", "ptr")]),
    ("FiOpsCq", "struct fi_ops_cq", "the completion queue's ops",
     [("size", "size"), ("read", "ptr"), ("readfrom", "ptr"), ("readerr", "ptr"), ("sread", "ptr"),
      ("sreadfrom", "ptr"), ("signal", "ptr"), ("strerror", "ptr")]),
    ("FiCqDataEntry", "struct fi_cq_data_entry", "a completion in FI_CQ_FORMAT_DATA",
     [("op_context", "ptr"), ("flags", "u64"), ("len", "size"), ("buf", "ptr"), ("data", "u64")]),
    ("FiCqErrEntry", "struct fi_cq_err_entry", "a failed completion",
     [("op_context", "ptr"), ("flags", "u64"), ("len", "size"), ("buf", "ptr"), ("data", "u64"), ("tag", "u64"),
      ("olen", "size"), ("err", "int"), ("prov_errno", "int"), ("err_data", "ptr"), ("err_data_size", "size")]),
    ("FiWaitAttr", "struct fi_wait_attr", "wait set attributes",
     [("wait_obj", "enum"), ("flags", "u64")]),
    ("FidWait", "struct fid_wait", "a wait set",
     [("fid", "ptr"), ("fid.context", "ptr"), ("fid.ops", "ptr"), ("ops", "ptr")]),
    ("FiOpsWait", "struct fi_ops_wait", "the wait set's ops",
     [("size", "size"), ("wait", "ptr")]),
    ("FiWaitPollfd", "struct fi_wait_pollfd", "the descriptors of an FI_WAIT_POLLFD wait object (fi_control FI_GETWAIT)",
     [("change_index", "u64"), ("nfds", "size"), ("fd", "ptr")]),
    ("Pollfd", "struct pollfd", "one descriptor of a poll set",
     [("fd", "int"), ("events", "u16"), ("revents", "u16")]),
    ("SockaddrIn", "struct sockaddr_in", "an IPv4 socket address, port and address in network order",
     [("sin_family", "u16"), ("sin_port", "u16"), ("sin_addr", "u32"), ("sin_zero", "b8")]),
    ("SockaddrIn6", "struct sockaddr_in6", "an IPv6 socket address, port in network order",
     [("sin6_family", "u16"), ("sin6_port", "u16"), ("sin6_flowinfo", "u32"), ("sin6_addr", "b16"),
      ("sin6_scope_id", "u32")]),
]

CTYPE = {"ptr": "void *", "u64": "uint64_t", "size": "size_t", "u32": "uint32_t", "int": "int", "enum": "enum",
         "u16": "uint16_t", "b16": "uint8_t[16]", "b8": "uint8_t[8]"}


def camel(name):
    parts = name.replace(".", "_").split("_")
    parts = [p for p in parts if p]
    return parts[0] + "".join(p[:1].upper() + p[1:] for p in parts[1:])


def gen(cls, ctype, what, members):
    # An embedded struct fid is written as its three members, named fid (fclass), fid.context and fid.ops in C's
    # designators, flattened here as fid_fclass..., so each is a plain member the layout test can name.
    fields = []
    for name, kind in members:
        if name == "fid" and kind == "ptr" and cls.startswith("Fid"):
            fields.append(("fid.fclass", "size"))
        else:
            fields.append((name, kind))
    at = 0
    items = []
    table = []
    align = 1
    for name, kind in fields:
        if kind in ("b8", "b16"):
            n = int(kind[1:])
            size, al, expr = n, 1, f"MemoryLayout.sequenceLayout({n}, JAVA_BYTE)"
        else:
            expr, size, al = KINDS[kind][0], KINDS[kind][1], KINDS[kind][2]
        align = max(align, al)
        if at % al:
            pad = al - at % al
            items.append(f"MemoryLayout.paddingLayout({pad})")
            at += pad
        items.append((name, expr))
        table.append((at, size, CTYPE[kind], name))
        at += size
    if at % align:
        items.append(f"MemoryLayout.paddingLayout({align - at % align})")
        at += align - at % align
    # Nested fid members become a group named fid.
    lines = []
    fid_group = [i for i in items if isinstance(i, tuple) and i[0].startswith("fid.")]
    layout_members = []
    if fid_group:
        inner = ",\n                    ".join(f'{e}.withName("{n[4:]}")' for n, e in fid_group)
        layout_members.append(f'MemoryLayout.structLayout(\n                    {inner}).withName("fid")')
    for i in items:
        if isinstance(i, tuple):
            if i[0].startswith("fid."):
                continue
            layout_members.append(f'{i[1]}.withName("{i[0]}")')
        else:
            layout_members.append(i)
    pic = "\n".join(f" * {o:6d} {s:4d}  {t:<9} {n}" for o, s, t, n in table)
    out = []
    out.append("// SPDX-License-Identifier: Apache-2.0\n// Generated by tools/gen-ofi-ffm.py from libfabric 1.17's headers; edit the table there.\n")
    out.append("package dat.provider.ofi.internal.ffm;\n\n")
    imports = {"java.lang.foreign.GroupLayout", "java.lang.foreign.MemoryLayout", "java.lang.foreign.MemorySegment"}
    statics = set()
    for name, kind in fields:
        if kind in ("b8", "b16"):
            statics.add("JAVA_BYTE")
        else:
            statics.add(KINDS[kind][0])
            acc = KINDS[kind][4]
            imports.add("java.lang.foreign." + acc.split(".")[0])
    for s in sorted(statics):
        out.append(f"import static java.lang.foreign.ValueLayout.{s};\n")
    out.append("\n")
    for i in sorted(imports):
        out.append(f"import {i};\n")
    out.append(f"""
/**
 * {{@code {ctype}}}: {what}.
 *
 * <p>Offsets as on Linux LP64 (x86_64, aarch64) with libfabric 1.17; {{@code OfiLayoutOffsetTest}} checks every
 * member and accessor against the C compiler.
 *
 * <pre>
 * offset size  C type    field
{pic}
 * sizeof {at}</pre>
 */
public final class {cls} {{

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.structLayout(
            {(","+chr(10)+"            ").join(layout_members)}).withName("{ctype}");

    /** {{@code sizeof({ctype})}}. */
    public static final long SIZEOF = LAYOUT.byteSize();
""")
    for name, kind in fields:
        const = name.replace(".", "_").upper()
        out.append(f"""
    /** Offset of {{@code {name}}}. */
    public static final long {const} = FfmLayouts.offset(LAYOUT, "{name}");
""")
    for name, kind in fields:
        if kind in ("b8", "b16"):
            continue
        const = name.replace(".", "_").upper()
        acc = KINDS[kind][4]
        jt = KINDS[kind][3]
        m = camel(name)
        decl = f"    static final {acc} {const}$LAYOUT = FfmLayouts.member(LAYOUT, \"{name}\", {acc}.class);"
        if len(decl) > 120:
            decl = (f"    static final {acc} {const}$LAYOUT =\n"
                    f"            FfmLayouts.member(LAYOUT, \"{name}\", {acc}.class);")
        out.append(f"""
{decl}

    /**
     * {{@return {{@code {name}}}}}
     *
     * @param struct a {{@code {ctype}}}
     */
    public static {jt} {m}(MemorySegment struct) {{
        return struct.get({const}$LAYOUT, {const});
    }}

    /**
     * Sets {{@code {name}}}.
     *
     * @param struct a {{@code {ctype}}}
     * @param value the new value
     */
    public static void {m}(MemorySegment struct, {jt} value) {{
        struct.set({const}$LAYOUT, {const}, value);
    }}
""")
    out.append(f"""
    private {cls}() {{
    }}
}}
""")
    (OUT / f"{cls}.java").write_text("".join(out))


for s in STRUCTS:
    gen(*s)
print(len(STRUCTS), "struct classes written to", OUT)
