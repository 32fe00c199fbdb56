// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dat.provider.ofi.internal.ffm.Fi;
import dat.provider.ofi.internal.ffm.FiDomainAttr;
import dat.provider.ofi.internal.ffm.FiException;
import dat.provider.ofi.internal.ffm.FiInfo;
import dat.provider.ofi.internal.ffm.FiMsgRma;
import dat.provider.ofi.internal.ffm.FiRmaIov;
import dat.provider.ofi.internal.ffm.FidMr;
import dat.provider.ofi.internal.ffm.Iovec;
import dat.provider.ofi.internal.ffm.LibFabric;
import dat.provider.ofi.internal.rdm.RdmControl;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;

/**
 * Receiver credits of one {@link OfiEp}'s connection on a fabric without hardware RNR (every {@code FI_EP_MSG} entry
 * but libfabric's verbs, and the RDM associations): a send goes into the connection only while the peer has a receive
 * posted for it (docs/ofi.md, "Receiver credits"). libfabric's tcp 1.17 leaves a message no receive waits for in the
 * socket and reads nothing more of that connection until a receive comes, the peer's FIN and the acknowledgements of
 * the other direction's RDMA writes included; an RC queue pair answers it with RNR NAKs and keeps acknowledging.
 *
 * <p>The credit is the count of receives the peer has posted on this connection, cumulative, so a late or reordered
 * advert never lowers it. It travels in the {@code cm_data} of the connect and accept ({@link #CM_BYTES} before the
 * consumer's private data: the address and key of this side's credit word, and the receives posted so far), as the
 * remote CQ data of every send (when the domain carries 8 bytes of it), and by an inject RDMA write of the count into
 * the peer's credit word, an 8-byte region registered with remote write for the connection and freed only after its
 * endpoint is closed. Under the IA's lock, like the rest of the EP.
 *
 * <p><b>Delivery.</b> An advert also tells the receives this side completed successfully ({@link #delivered}): the
 * CQ data and the word hold both counts, 32 bits each ({@link #pack}), cumulative modulo 2^32. The peer's sends on a
 * gated connection complete at transmit in libfabric and are reported to DAT only when this count covers them
 * (OfiEpData#acknowledge), so a send still completes when its receive took it, as on an RC queue pair, without
 * libfabric's {@code FI_DELIVERY_COMPLETE} acknowledgement: on tcp that is a message and a {@code sendto} of the
 * receiver for every message, where the count rides on the receiver's own next send or on one write for many.
 *
 * <p><b>Over RDM</b> (docs/ofi-rdm-protocol.md, "Credit and delivery") the same counts gate and complete the sends:
 * the header travels at the head of the {@code REQUEST}'s and {@code ACCEPT}'s private data, both counts in the remote
 * CQ data of the tagged sends (whose tag names the connection), and the word is two 8-byte halves, the delivered and
 * the posted count each beside the serial of the connection the advert is for, which the reader checks: a write of a
 * peer that has not seen the end yet may land in a word that serves a later connection. Such a word comes from a pool
 * of the process and is never freed, so it stays memory of the word's whatever writes late. A fabric that buffers
 * unexpected messages still needs the credit: a message it took without a receive may fill a receive posted after
 * the sender's abrupt end flushed its send, where an RC sender's message waits in RNR and goes with the connection.
 *
 * <p><b>An EP on an SRQ</b> counts too: its receives are the SRQ's buffers it was lent ({@link OfiSrq}), one per
 * message its peer wants to send. Its header says so ({@link #LENDS}); a sender held for credit toward it writes how
 * many sends it wants in all (cumulative, like the counts) into the third 8 bytes of the word ({@link #WANT_OFFSET}),
 * and the lender's progress reads {@link #peerWanted} and lends that many buffers as they are there. So no message
 * goes to a connection without a buffer waiting for it, as on every other connection, and a buffer goes only to a
 * connection whose peer has a message for it: an SRQ buffer is taken by a message, as on an RC queue pair's SRQ.
 */
// Restricted methods on purpose: reached only after OfiProvider checked Module.isNativeAccessEnabled().
@SuppressWarnings("restricted")
final class OfiCredit {

    /** The bytes of connection data the credit header takes: word address, word key, receives posted. */
    static final int CM_BYTES = RdmControl.DELIVERY_HEADER;
    /** How long an advert waits for a send of this side to carry it for free. */
    static final long GRACE_NANOS = 30_000;
    /** The slot of the operation context that names an EP's credit write. */
    static final int WRITE_SLOT = (1 << 19) - 1;
    /** The slot of the operation context that names an EP's fence read ({@link #fence}). */
    static final int FENCE_SLOT = (1 << 19) - 2;

    /** {@link #fenceState}: no fence read out. */
    static final byte FENCE_NONE = 0;
    /** {@link #fenceState}: the fence read is posted and not completed. */
    static final byte FENCE_PENDING = 1;
    /** {@link #fenceState}: the fence read completed successfully. */
    static final byte FENCE_DONE = 2;
    /** {@link #fenceState}: the fence read failed. */
    static final byte FENCE_FAILED = 3;

    private static final VarHandle WORD = JAVA_LONG.varHandle();
    /** The words of RDM connections no EP uses now (see the class comment): never freed. */
    private static final ArrayDeque<MemorySegment> SPARE_WORDS = new ArrayDeque<>();

    private final OfiEp ep;
    private final OfiIa ia;
    /** Whether the connection carries the header: MSG, not verbs. */
    private final boolean framed;
    /** The header's mark of an EP on an SRQ: its receives are lent on demand (bit 62 of the receives posted). */
    static final long LENDS = 1L << 62;
    /** Where in the word the peer's count of sends it wants goes (see the class comment). */
    static final int WANT_OFFSET = 16;
    /** The word's bytes: the counts (MSG; the two RDM halves), the fence bytes (MSG), the wanted sends. */
    static final int WORD_BYTES = 24;

    /** Whether the EP lends its receives from an SRQ. */
    private final boolean lends;
    /** Whether a send carries the count as remote CQ data. */
    final boolean piggyback;
    /** Whether the connection is an RDM association: adverts carry the serial, not the receives. */
    private final boolean rdm;
    /** Over RDM: the serial of this side's connection (what the peer's adverts carry) and the peer's. */
    private int ownSerial;
    private int peerSerial;

    private Arena arena;
    private MemorySegment word;
    private MemorySegment value;
    private MemorySegment iov;
    private MemorySegment rmaIov;
    private MemorySegment msg;
    private MemorySegment mr = MemorySegment.NULL;
    private long key;

    /** Whether this side's sends wait for the peer's credit: the peer counts its receives. */
    boolean gate;
    /** Whether this side tells the peer its receives: it counts them, and the peer takes part. */
    boolean advertise;
    /** Whether this side's sends complete on the peer's advert of what landed: the peer counts its receives. */
    private boolean acking;
    /** Receives the peer has posted: what the sends may use. */
    long credit;
    /** Sends handed to the fabric. */
    long sent;
    /** Receives posted to the fabric on this connection. */
    long posted;
    /** The last {@link #posted} the peer was told. */
    long advertised;
    /** Receive completions of this connection. */
    long consumed;
    /** Successful receive completions of this connection: the peer's sends that landed. */
    long delivered;
    /** The last {@link #delivered} the peer was told. */
    long deliveredTold;
    /** The counts the last {@link #carry} packed into a send's CQ data. */
    private long carriedPosted;
    private long carriedDelivered;
    /** The peer's {@link #delivered} as last told: this side's sends that landed. */
    long peerDelivered;
    private long peerAddr;
    private long peerKey;
    private boolean peerKnown;
    /** Whether an advert waits for {@link #dueAt}. */
    boolean due;
    private long dueAt;
    /** Whether the peer lends its receives from an SRQ: this side says how many sends it wants. */
    boolean peerLends;
    /** Sends the peer wants in all, as it last wrote: what an EP on an SRQ lends toward. */
    long peerWanted;
    /** The wanted count this side last wrote to the peer. */
    long wantTold;
    /** Credit writes made, for the tests. */
    long writes;
    /** Where this connection's fence read stands ({@link #FENCE_NONE} ...). */
    byte fenceState;
    /** Fence reads made, for the tests. */
    long fences;

    OfiCredit(OfiEp ep) {
        this.ep = ep;
        this.ia = ep.owner();
        this.framed = framed(ia);
        this.lends = ep.srq != null;
        MemorySegment dom = FiInfo.domainAttr(ia.info).reinterpret(FiDomainAttr.SIZEOF);
        this.piggyback = FiDomainAttr.cqDataSize(dom) >= 8;
        this.rdm = ia.entry.limits().epType() == LibFabric.FI_EP_RDM;
    }

    /** {@return whether the IA's connections carry the credit header in their connection data} */
    static boolean framed(OfiIa ia) {
        return framed(ia.entry);
    }

    static boolean framed(OfiEntry entry) {
        return entry.limits().epType() == LibFabric.FI_EP_MSG && !entry.ibVerbs();
    }

    /**
     * A new endpoint for a connection: the counts start again, and the EP registers its credit word (an EP on an SRQ
     * too: its sends wait for the peer's credit like any). Under the IA's lock, before the receives waiting for the
     * endpoint are posted.
     */
    @SuppressWarnings("MustBeClosedChecker") // the arena belongs to the EP: free()
    void open(String call) {
        gate = false;
        advertise = false;
        acking = false;
        ownSerial = 0;
        peerSerial = 0;
        credit = 0;
        sent = 0;
        posted = 0;
        advertised = 0;
        consumed = 0;
        delivered = 0;
        deliveredTold = 0;
        carriedPosted = 0;
        carriedDelivered = 0;
        peerDelivered = 0;
        peerKnown = false;
        peerLends = false;
        peerWanted = 0;
        wantTold = 0;
        peerAddr = 0;
        peerKey = 0;
        due = false;
        if (!framed && !rdm) {
            return;
        }
        if (arena == null) {
            arena = Arena.ofShared();
            // MSG: the word, then the 8 bytes a fence read of the peer's word lands in, one registration for both.
            // RDM: the word's two halves (rdmHalf). Then the wanted sends (WANT_OFFSET).
            word = rdm ? spareWord() : arena.allocate(WORD_BYTES, 8);
            value = arena.allocate(WORD_BYTES, 8);
            iov = arena.allocate(Iovec.LAYOUT);
            rmaIov = arena.allocate(FiRmaIov.LAYOUT);
            msg = arena.allocate(FiMsgRma.LAYOUT);
        }
        word.set(JAVA_LONG, 0, 0);
        word.set(JAVA_LONG, 8, 0);
        word.set(JAVA_LONG, WANT_OFFSET, 0);
        fenceState = FENCE_NONE;
        boolean provKey = (ia.entry.limits().mrMode() & LibFabric.FI_MR_PROV_KEY) != 0;
        long requested = 0;
        if (!provKey) {
            do {
                requested = OfiIa.RANDOM.nextInt() & 0x7fffffffL;
            } while (requested == 0 || ep.pz.keys.containsKey(requested));
        }
        try (Arena local = Arena.ofConfined()) {
            MemorySegment out = local.allocate(ADDRESS);
            // Remote read for the peer's fence reads, local read for this side's (dat_lmr_free, OfiLmr).
            ia.fi.check("fi_mr_reg(credit)", Fi.fi_mr_reg(ep.pz.domain, word.address(), WORD_BYTES,
                    LibFabric.FI_REMOTE_WRITE | LibFabric.FI_REMOTE_READ | LibFabric.FI_READ, requested, out));
            mr = out.get(ADDRESS, 0).reinterpret(FidMr.SIZEOF);
        } catch (FiException e) {
            throw OfiIa.resources(call, e);
        }
        key = FidMr.key(mr);
        // An LMR's key must not be the word's (where jDAT chooses keys): the zone's keys hold it while it lives.
        ep.pz.keys.put(key, null);
        ia.creditEps.add(ep.data);
    }

    /** {@return a word of the pool, or a new one: RDM words are never freed (see the class comment)} */
    private static MemorySegment spareWord() {
        synchronized (SPARE_WORDS) {
            MemorySegment w = SPARE_WORDS.poll();
            return w != null ? w : Arena.global().allocate(WORD_BYTES, 8);
        }
    }

    /**
     * Over RDM: the serials the adverts carry, this side's and the peer's, once both are known (the active side's
     * peer serial at the accept).
     */
    void serials(int own, int peer) {
        ownSerial = own;
        peerSerial = peer;
    }

    /** The connection's endpoint is closed: the word goes, now that no progress of it can write there. */
    void close() {
        ia.creditEps.remove(ep.data);
        gate = false;
        advertise = false;
        acking = false;
        due = false;
        fenceState = FENCE_NONE;
        if (mr.address() != 0) {
            Fi.fi_close(mr);
            ep.pz.keys.remove(key);
            mr = MemorySegment.NULL;
        }
    }

    /** dat_ep_free, after {@link #close}: the word's memory goes. */
    void free() {
        close();
        if (arena != null) {
            if (rdm) {
                synchronized (SPARE_WORDS) {
                    SPARE_WORDS.push(word);
                }
            }
            arena.close();
            arena = null;
            word = null;
        }
    }

    /**
     * {@return the connection data of a connect or accept: the credit header (the word's address and key, the
     * receives posted, with {@link #LENDS} for an EP on an SRQ), then the consumer's bytes}
     */
    byte[] frame(byte[] privateData) {
        int n = privateData == null ? 0 : privateData.length;
        boolean word = mr.address() != 0;
        ByteBuffer b = ByteBuffer.allocate(CM_BYTES + n).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(word ? this.word.address() : 0).putLong(word ? key : 0).putLong(posted | (lends ? LENDS : 0));
        if (n > 0) {
            b.put(privateData);
        }
        advertised = posted;
        deliveredTold = delivered;
        due = false;
        return b.array();
    }

    /** {@return the consumer's part of connection data {@link #frame} made, or the bytes as they are if shorter} */
    static byte[] payload(byte[] cmData) {
        if (cmData == null || cmData.length < CM_BYTES) {
            return cmData;
        }
        byte[] rest = new byte[cmData.length - CM_BYTES];
        System.arraycopy(cmData, CM_BYTES, rest, 0, rest.length);
        return rest;
    }

    /**
     * The peer's header (connect request or accept): the sends wait for credit when the peer counts its receives, the
     * receives are told when the peer has a word to tell them in.
     */
    void peer(byte[] cmData) {
        if (mr.address() == 0 || cmData == null || cmData.length < CM_BYTES) {
            return;
        }
        ByteBuffer b = ByteBuffer.wrap(cmData, 0, CM_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        peerAddr = b.getLong();
        peerKey = b.getLong();
        long initial = b.getLong();
        gate = initial >= 0;
        acking = gate;
        peerLends = gate && (initial & LENDS) != 0;
        raise(gate ? initial & ~LENDS : 0);
        advertise = peerAddr != 0;
        peerKnown = advertise;
        // Receives posted since the header went out, or consumed already, may want telling now.
        receivesChanged();
    }

    /**
     * An advert of the peer: the receives it posted in the low 32 bits, the ones it completed successfully in the
     * high 32 ({@link #pack}), each cumulative modulo 2^32.
     */
    void raise(long packed) {
        credit = advance(credit, packed);
        peerDelivered = advance(peerDelivered, packed >>> 32);
    }

    /**
     * {@return {@code current} moved up to the count whose low 32 bits are {@code low32}, or {@code current} when that
     * is not ahead}: a count never runs 2^31 ahead of what the other side last saw (the queues are far smaller), so the
     * signed 32-bit difference is the advance, and a late advert never lowers a count
     */
    static long advance(long current, long low32) {
        int delta = (int) (low32 - current);
        return delta > 0 ? current + delta : current;
    }

    /** {@return this side's advert: {@link #posted} and {@link #delivered}, 32 bits each} */
    long pack() {
        return delivered << 32 | (posted & 0xffff_ffffL);
    }

    /**
     * {@return one half of the RDM word: {@code count} modulo 2^32 in the high 32 bits, {@code serial} in the low}
     * Each half names its connection on its own: a write lands 8 aligned bytes at a time at least, so a reader that
     * meets a half of an earlier connection's late write beside one of this connection's takes only the latter.
     */
    static long rdmHalf(long count, int serial) {
        return count << 32 | (serial & 0xffff_ffffL);
    }

    /** {@return the credit word the peer writes (tests)} */
    MemorySegment word() {
        return word;
    }

    /** {@return the serial the peer's adverts name over RDM (tests)} */
    int ownSerial() {
        return ownSerial;
    }

    /** {@return whether this side's sends complete when the peer's advert says they landed: the peer counts} */
    boolean acks() {
        return acking;
    }

    /** {@return whether a send may go into the connection now} */
    boolean maySend() {
        return !gate || sent < credit;
    }

    /** Reads what the peer wrote into the credit word. */
    void readWord() {
        if (!acking || word == null) {
            return;
        }
        if (!rdm) {
            raise((long) WORD.getVolatile(word, 0L));
            if (lends) {
                peerWanted = advance(peerWanted, (long) WORD.getVolatile(word, (long) WANT_OFFSET));
            }
            return;
        }
        // The halves of an advert for another connection (a late write into a pooled word) are ignored.
        long landed = (long) WORD.getVolatile(word, 0L);
        long posts = (long) WORD.getVolatile(word, 8L);
        if (ownSerial != 0 && (int) landed == ownSerial) {
            peerDelivered = advance(peerDelivered, landed >>> 32);
        }
        if (ownSerial != 0 && (int) posts == ownSerial) {
            credit = advance(credit, posts >>> 32);
        }
        if (lends) {
            long wants = (long) WORD.getVolatile(word, (long) WANT_OFFSET);
            if (ownSerial != 0 && (int) wants == ownSerial) {
                peerWanted = advance(peerWanted, wants >>> 32);
            }
        }
    }

    /**
     * A receive was posted or completed: an advert is due when less than half the unconsumed ones are told, or when
     * a message landed that the peer was not told of (its send waits for that to complete).
     */
    void receivesChanged() {
        if (!advertise || due) {
            return;
        }
        long left = posted - consumed;
        if ((posted > advertised && (advertised - consumed) * 2 < left) || delivered != deliveredTold) {
            due = true;
            dueAt = ia.stepClock() + (piggyback ? GRACE_NANOS : 0);
        }
    }

    /**
     * {@return {@link #pack} for a send to carry as its CQ data} The counts are kept for {@link #carried}: the send
     * tells the peer what they were here, whatever progress steps its {@code -FI_EAGAIN} retries run before it goes.
     */
    long carry() {
        carriedPosted = posted;
        carriedDelivered = delivered;
        return pack();
    }

    /** A send (carrying {@link #carry}'s counts when it advertises) went into the connection. */
    void carried() {
        sent++;
        if (piggyback && advertise) {
            advertised = carriedPosted;
            deliveredTold = carriedDelivered;
            due = false;
            // Receives posted or completed by the steps the send waited through are not in its data: due still.
            receivesChanged();
        }
    }

    /** {@return whether an advert is due now and can go} */
    boolean advertDue(long now) {
        return due && peerKnown && now - dueAt >= 0;
    }

    /**
     * Writes {@link #pack} into the peer's word (inject, so the value may change at once). It asks no completion (the
     * transmit CQ is bound {@code FI_SELECTIVE_COMPLETION}); a failure's names {@link #WRITE_SLOT} and is dropped.
     *
     * @param dest the peer's address: 0 on a connected endpoint, its AV entry over RDM
     * @return libfabric's answer: 0, -FI_EAGAIN (the advert stays due), or a failure
     */
    long write(MemorySegment fnWritemsg, MemorySegment fid, long dest, long context) {
        if (rdm) {
            value.set(JAVA_LONG, 0, rdmHalf(delivered, peerSerial));
            value.set(JAVA_LONG, 8, rdmHalf(posted, peerSerial));
        } else {
            value.set(JAVA_LONG, 0, pack());
        }
        long rc = inject(0, rdm ? 16 : 8, fnWritemsg, fid, dest, context);
        if (rc == 0) {
            advertised = posted;
            deliveredTold = delivered;
            due = false;
        }
        return rc;
    }

    /**
     * {@return whether the peer lends on demand and has not been told of {@code wanted} sends yet} {@code wanted} is
     * this side's sends handed to the fabric and held for credit, cumulative.
     */
    boolean wantUntold(long wanted) {
        return peerLends && peerKnown && wanted - wantTold > 0;
    }

    /**
     * Writes {@code wanted} into the peer's word at {@link #WANT_OFFSET} (inject), as {@link #write} does the counts.
     *
     * @return libfabric's answer: 0, -FI_EAGAIN (it is written at a later step), or a failure
     */
    long writeWant(long wanted, MemorySegment fnWritemsg, MemorySegment fid, long dest, long context) {
        value.set(JAVA_LONG, WANT_OFFSET, rdm ? rdmHalf(wanted, peerSerial) : wanted & 0xffff_ffffL);
        long rc = inject(WANT_OFFSET, 8, fnWritemsg, fid, dest, context);
        if (rc == 0) {
            wantTold = wanted;
        }
        return rc;
    }

    /** Writes {@code length} bytes of {@link #value} at {@code offset} to the same offset of the peer's word. */
    private long inject(int offset, int length, MemorySegment fnWritemsg, MemorySegment fid, long dest, long context) {
        peerWordMsg(value.address() + offset, 0, offset, length, dest, context);
        long rc = Fi.post(fnWritemsg, fid.address(), msg.address(), LibFabric.FI_INJECT);
        if (rc == 0) {
            writes++;
        }
        return rc;
    }

    /** {@return the buffers an EP on an SRQ may lend now: what its peer wants beyond what it was lent} */
    long lendWanted() {
        return lends && peerKnown ? peerWanted - posted : 0;
    }

    /** Buffers were lent: the peer, held for them, is told at once. */
    void lent() {
        if (advertise) {
            due = true;
            dueAt = System.nanoTime();
        }
    }

    /**
     * Fills the whole RMA message toward the peer's word ({@code dest}: its {@code fi_addr} over RDM), {@code length}
     * bytes from or to {@code local}: a write and a fence read share the scratch, so neither may trust what the other
     * left.
     */
    private void peerWordMsg(long local, long descs, int offset, int length, long dest, long context) {
        iov.set(JAVA_LONG, Iovec.IOV_BASE, local);
        Iovec.iovLen(iov, length);
        FiRmaIov.addr(rmaIov, peerAddr + offset);
        FiRmaIov.len(rmaIov, length);
        FiRmaIov.key(rmaIov, peerKey);
        msg.set(JAVA_LONG, FiMsgRma.MSG_IOV, iov.address());
        msg.set(JAVA_LONG, FiMsgRma.DESC, descs);
        FiMsgRma.iovCount(msg, 1);
        FiMsgRma.addr(msg, dest);
        msg.set(JAVA_LONG, FiMsgRma.RMA_IOV, rmaIov.address());
        FiMsgRma.rmaIovCount(msg, 1);
        msg.set(JAVA_LONG, FiMsgRma.CONTEXT, context);
        FiMsgRma.data(msg, 0);
    }

    /** {@return whether a fence read can go: the connection's word is registered and the peer told its own} */
    boolean canFence() {
        return mr.address() != 0 && peerAddr != 0;
    }

    /**
     * Reads the peer's credit word into this side's fence bytes: a read whose response tcp sends after every RDMA
     * write the peer had begun (docs/ofi.md, "Memory safety on tcp"). The completion names {@link #FENCE_SLOT} and
     * comes to {@link #fenced}. 
     *
     * @return libfabric's answer: 0, -FI_EAGAIN, or a failure
     */
    long fence(MemorySegment fnReadmsg, MemorySegment fid, long context) {
        value.set(JAVA_LONG, 0, FidMr.memDesc(mr).address());
        peerWordMsg(word.address() + 8, value.address(), 0, 8, 0, context);
        long rc = Fi.post(fnReadmsg, fid.address(), msg.address(), LibFabric.FI_COMPLETION);
        if (rc == 0) {
            fenceState = FENCE_PENDING;
            fences++;
        }
        return rc;
    }

    /** Over RDM: the fence went as a {@code FENCE} to the peer, whose {@code FENCE_ACK} comes to {@link #fenced}. */
    void fenceSent() {
        fenceState = FENCE_PENDING;
        fences++;
    }

    /** The fence read completed, {@code error} 0 for a success. */
    void fenced(int error) {
        if (fenceState == FENCE_PENDING) {
            fenceState = error == 0 ? FENCE_DONE : FENCE_FAILED;
        }
    }
}
