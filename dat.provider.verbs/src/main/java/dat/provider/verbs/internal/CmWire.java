// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * What the verbs provider puts on the wire when it connects, the same as OFA uDAPL 2.1.10's rdma_cm provider
 * ({@code libdaplofa}, {@code dapl/openib_cma/cm.c}), so a jDAT EP and a C uDAPL EP connect to each other. The
 * format is documented in {@code docs/verbs.md} ("Connection wire format").
 *
 * <ul>
 *   <li>Connection qualifier to rdma_cm TCP port: a qualifier up to 0xFFFF is the port; a larger one is
 *       {@code qual % 32001 + 33534} ({@code SID_TO_PORT}).</li>
 *   <li>Private data of a connect or an accept: the consumer's bytes from offset 0, as uDAPL sends them (no
 *       header). rdma_cm on InfiniBand and RoCE hands the receiver the whole zero-padded field (56 bytes of a
 *       REQ, 196 of a REP), so jDAT sends the whole field with a 4-byte trailer in its last bytes
 *       ({@code 'j' 'D' n ~n}) when the consumer's {@code n} bytes leave room (always in an accept, up to 52 bytes
 *       in a connect): a jDAT receiver that finds a valid trailer at the end of the field (and zeros everywhere
 *       between the data and it) reports exactly {@code n} bytes; any other field (uDAPL's, or a jDAT connect's 53
 *       to 56 bytes) is reported whole, as uDAPL reports it. A uDAPL receiver reads the trailer as padding it
 *       never looks at.</li>
 *   <li>A consumer's reject carries uDAPL's 4-byte header (a big-endian version word, never 0); uDAPL's active
 *       side reports a reject with status 28 and a header as the peer's. A reject with no header (a request
 *       nobody listens for, rdma_cm's own refusals) is a non-peer reject on both implementations.</li>
 *   <li>RDMA read depths: a connect offers the EP's {@code max_rdma_read_in} as responder resources and its
 *       {@code max_rdma_read_out} as initiator depth; an accept answers each with the smaller of the EP's and
 *       the request's value as the connect-request event reports it (already from the receiver's side).</li>
 * </ul>
 */
final class CmWire {

    /** rdma_cm's private data in a REQ on InfiniBand/RoCE: an IB CM REQ's 92 bytes less rdma_cm's 36. */
    static final int REQ_FIELD = 56;
    /** rdma_cm's private data in a REP (an accept): all of an IB CM REP's 196 bytes. */
    static final int REP_FIELD = 196;
    /** The length of jDAT's trailer. */
    static final int TRAILER = 4;
    /** Maximum private data a consumer may give: the whole REQ field (uDAPL's {@code IB_MAX_REQ_PDATA_SIZE}). */
    static final int MAX_PRIVATE_DATA = REQ_FIELD;
    /** uDAPL's {@code struct dapl_pdata_hdr}: one 32-bit version word. */
    static final int REJECT_HEADER = 4;
    /** jDAT's reject header: DAT 1.2, provider 0.0, in uDAPL's layout (major, minor, provider major, minor). */
    static final int REJECT_VERSION = 0x0102_0000;
    /** The IB CM reject reason rdma_reject gives ({@code IB_CM_REJ_CONSUMER_DEFINED}). */
    static final int REJECT_CONSUMER = 28;

    private static final int PORT_MOD = 32001;
    private static final int PORT_BASE = 65535 - PORT_MOD;
    private static final byte MAGIC0 = 'j';
    private static final byte MAGIC1 = 'D';

    private CmWire() {
    }

    /**
     * {@return the rdma_cm TCP port of a connection qualifier, as uDAPL's {@code SID_TO_PORT} maps it}
     *
     * @param connQual the qualifier (unsigned)
     */
    static int port(long connQual) {
        if (Long.compareUnsigned(connQual, 0xFFFF) > 0) {
            return (int) (Long.remainderUnsigned(connQual, PORT_MOD) + PORT_BASE);
        }
        return (int) connQual;
    }

    /**
     * Writes the private data of a connect or an accept.
     *
     * @param data the consumer's bytes (at most {@link #MAX_PRIVATE_DATA}), or {@code null}
     * @param field {@link #REQ_FIELD} for a connect, {@link #REP_FIELD} for an accept
     * @param out at least {@code field} bytes
     * @return the length to hand rdma_cm: {@code field}
     */
    static int encode(byte[] data, int field, MemorySegment out) {
        int n = data == null ? 0 : data.length;
        if (n > MAX_PRIVATE_DATA || field < REQ_FIELD) {
            throw new IllegalArgumentException(n + " bytes of private data in a field of " + field);
        }
        out.asSlice(0, field).fill((byte) 0);
        if (n > 0) {
            MemorySegment.copy(data, 0, out, JAVA_BYTE, 0, n);
        }
        int at = field - TRAILER;
        if (n <= at) {
            out.set(JAVA_BYTE, at, MAGIC0);
            out.set(JAVA_BYTE, at + 1, MAGIC1);
            out.set(JAVA_BYTE, at + 2, (byte) n);
            out.set(JAVA_BYTE, at + 3, (byte) ~n);
        }
        return field;
    }

    /**
     * {@return the private data to report: exactly the consumer's bytes when a jDAT trailer ends the field and says
     * how many, else the field as rdma_cm delivered it, or {@code null} when it delivered none}
     *
     * @param field the private-data field of a connect request, a connect response or an established event
     */
    static byte[] decode(byte[] field) {
        if (field.length == 0) {
            return null;
        }
        int n = trailerLength(field);
        if (n < 0) {
            return field.clone();
        }
        return n == 0 ? null : Arrays.copyOf(field, n);
    }

    /** {@return the length a valid trailer at the end of the field gives, or -1 when the field has none} */
    private static int trailerLength(byte[] field) {
        int at = field.length - TRAILER;
        if (at < 0 || field[at] != MAGIC0 || field[at + 1] != MAGIC1) {
            return -1;
        }
        int n = Byte.toUnsignedInt(field[at + 2]);
        if (n > Math.min(at, MAX_PRIVATE_DATA) || (byte) ~n != field[at + 3]) {
            return -1;
        }
        for (int i = n; i < at; i++) {
            if (field[i] != 0) {
                return -1;
            }
        }
        return n;
    }

    /**
     * Writes a consumer reject's private data: uDAPL's header and no consumer bytes (DAT 1.2's
     * {@code dat_cr_reject} has none).
     *
     * @param out at least {@link #REJECT_HEADER} bytes
     * @return the length to hand rdma_reject
     */
    static int encodeReject(MemorySegment out) {
        out.set(JAVA_BYTE, 0, (byte) (REJECT_VERSION >>> 24));
        out.set(JAVA_BYTE, 1, (byte) (REJECT_VERSION >>> 16));
        out.set(JAVA_BYTE, 2, (byte) (REJECT_VERSION >>> 8));
        out.set(JAVA_BYTE, 3, (byte) REJECT_VERSION);
        return REJECT_HEADER;
    }

    /**
     * {@return whether a REJECTED event is the peer consumer's reject: reason 28 with uDAPL's header, whose
     * version word is never 0}
     *
     * @param status the event's status (the IB CM reject reason)
     * @param field the reject's private data as delivered
     */
    static boolean consumerReject(int status, byte[] field) {
        if (status != REJECT_CONSUMER || field.length < REJECT_HEADER) {
            return false;
        }
        return (field[0] | field[1] | field[2] | field[3]) != 0;
    }

    /**
     * {@return the responder resources an accept answers with}
     *
     * @param epReadIn the accepting EP's {@code max_rdma_read_in}
     * @param requestResponderResources the request event's responder resources (already the receiver's view)
     */
    static int acceptResponderResources(int epReadIn, int requestResponderResources) {
        return Math.min(epReadIn, requestResponderResources);
    }

    /**
     * {@return the initiator depth an accept answers with}
     *
     * @param epReadOut the accepting EP's {@code max_rdma_read_out}
     * @param requestInitiatorDepth the request event's initiator depth (already the receiver's view)
     */
    static int acceptInitiatorDepth(int epReadOut, int requestInitiatorDepth) {
        return Math.min(epReadOut, requestInitiatorDepth);
    }
}
