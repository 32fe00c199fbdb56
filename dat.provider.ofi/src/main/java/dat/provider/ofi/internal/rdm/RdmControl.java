// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal.rdm;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * One control message of the RDM association protocol ({@code docs/ofi-rdm-protocol.md}, "Control messages"), and
 * its codec. Control messages travel only when connections start and end or a peer is probed, so this record may
 * allocate; the data path never builds one.
 *
 * @param type what the message is for
 * @param senderEp the sender's EP id
 * @param senderSerial the sender's connection serial
 * @param receiverEp the receiver's EP id, 0 in a {@link Type#REQUEST}
 * @param receiverSerial the receiver's connection serial, 0 in a {@link Type#REQUEST}
 * @param senderTarget the tag target the receiver must send the sender's messages to
 *     ({@link RdmTags#epTarget})
 * @param qualifier a request's destination qualifier, else the sender's local qualifier
 * @param iaAddress the sender's IA address, 16 bytes (IPv6 or IPv4-mapped)
 * @param readDepth the sender's incoming RDMA read depth for the connection
 * @param controlAddress the sender IA's control-endpoint address as {@code fi_getname} gives it, at most
 *     {@link #MAX_ADDRESS} bytes: where the receiver sends its control messages
 * @param dataAddress the sender EP's data-endpoint address, at most {@link #MAX_ADDRESS} bytes: where the
 *     receiver's DAT sends and RDMA operations go (empty in messages other than a request and an accept)
 * @param privateData DAT private data, at most {@link #MAX_PRIVATE_DATA}
 */
public record RdmControl(Type type, int senderEp, int senderSerial, int receiverEp, int receiverSerial,
                         int senderTarget, long qualifier, byte[] iaAddress, int readDepth, byte[] controlAddress,
                         byte[] dataAddress, byte[] privateData) {

    /** The protocol's magic number, the first two bytes of every control message. */
    public static final short MAGIC = (short) 0xDA7A;
    /**
     * The protocol version this codec writes and the only one it reads: 2 since sends complete on the receiver's
     * delivery count, whose header heads a request's and an accept's private data; 3 since sends also wait for the
     * receiver's credit, whose adverts the CQ data and the word's second half carry.
     */
    public static final byte VERSION = 3;
    /** Bytes before the variable part. */
    public static final int HEADER = 60;
    /** The largest endpoint address a message carries. */
    public static final int MAX_ADDRESS = 128;
    /** The delivery header at the head of a request's and an accept's private data (OfiCredit). */
    public static final int DELIVERY_HEADER = 24;
    /** The largest DAT private data of a connection: the provider's {@code max_private_data_size}. */
    public static final int MAX_CONSUMER_DATA = 256;
    /** The largest private data a message carries: the delivery header and the DAT private data. */
    public static final int MAX_PRIVATE_DATA = DELIVERY_HEADER + MAX_CONSUMER_DATA;
    /** The largest control message, the size of every control receive buffer. */
    public static final int MAX_SIZE = 640;

    /** The message types; {@link #code} is the wire value. */
    public enum Type {
        /** Active data endpoint to the listen endpoint: {@code dat_ep_connect}. */
        REQUEST(1),
        /** Passive to active: {@code dat_cr_accept}. */
        ACCEPT(2),
        /** Passive to active: {@code dat_cr_reject}, or no EP could take the request. */
        REJECT(3),
        /** Active to passive: the active side saw the accept. */
        READY(4),
        /** Either side: {@code dat_ep_disconnect}. */
        DISCONNECT(5),
        /** Either side: the answer to {@link #DISCONNECT}. */
        DISCONNECT_ACK(6),
        /** Either side: keep-alive probe. */
        PING(7),
        /** Either side: the answer to {@link #PING}. */
        PONG(8),
        /**
         * Either side: {@code dat_lmr_free} of a region the peer may write; the peer answers {@link #FENCE_ACK} once
         * the RDMA writes it had posted when the fence came completed.
         */
        FENCE(9),
        /** Either side: the answer to {@link #FENCE}. */
        FENCE_ACK(10),
        /**
         * Either side: an RDMA operation of the sender has not completed for a while; is its remote part (the
         * private data: {@link RdmProbe}) one the receiver's zone takes?
         */
        CHECK(11),
        /** Either side: the answer to {@link #CHECK}, the probe with its verdict. */
        CHECK_ACK(12);

        private static final Type[] BY_CODE = values();
        final byte code;

        Type(int code) {
            this.code = (byte) code;
        }

        static Type of(int code) {
            return code >= 1 && code <= BY_CODE.length ? BY_CODE[code - 1] : null;
        }
    }

    private static final byte[] NONE = new byte[0];

    /** Checks the lengths the wire format bounds and copies the arrays, so a message cannot change once built. */
    public RdmControl {
        if (type == null) {
            throw new IllegalArgumentException("type is null");
        }
        if (iaAddress == null || iaAddress.length != 16) {
            throw new IllegalArgumentException("iaAddress must be 16 bytes");
        }
        controlAddress = checkAddress("controlAddress", controlAddress);
        dataAddress = checkAddress("dataAddress", dataAddress);
        privateData = privateData == null ? NONE : privateData.clone();
        if (privateData.length > MAX_PRIVATE_DATA) {
            throw new IllegalArgumentException(
                "privateData is " + privateData.length + " bytes, at most " + MAX_PRIVATE_DATA);
        }
        iaAddress = iaAddress.clone();
    }

    private static byte[] checkAddress(String name, byte[] address) {
        if (address == null) {
            return NONE;
        }
        if (address.length > MAX_ADDRESS) {
            throw new IllegalArgumentException(name + " is " + address.length + " bytes, at most " + MAX_ADDRESS);
        }
        return address.clone();
    }

    /**
     * A message of {@code type} that carries nothing but its ids, answering {@code to}: a reject from a listen
     * endpoint, or an association's own replies.
     *
     * @param type the answer's type
     * @param to the message answered
     * @param senderEp the answering EP's id, 0 for a listen endpoint
     * @param senderSerial the answering EP's serial, 0 for a listen endpoint
     * @param iaAddress the answering IA's address, 16 bytes
     * @return the answer
     */
    public static RdmControl answer(Type type, RdmControl to, int senderEp, int senderSerial, byte[] iaAddress) {
        return new RdmControl(type, senderEp, senderSerial, to.senderEp, to.senderSerial, 0, 0, iaAddress, 0, null,
                              null, null);
    }

    /**
     * The sender's IA address; a copy.
     *
     * @return the address
     */
    @Override
    public byte[] iaAddress() {
        return iaAddress.clone();
    }

    /**
     * The sender IA's control-endpoint address; a copy.
     *
     * @return the address
     */
    @Override
    public byte[] controlAddress() {
        return controlAddress.clone();
    }

    /**
     * The sender EP's data-endpoint address; a copy.
     *
     * @return the address
     */
    @Override
    public byte[] dataAddress() {
        return dataAddress.clone();
    }

    /**
     * The private data; a copy.
     *
     * @return the private data
     */
    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    /**
     * The message's size on the wire.
     *
     * @return bytes
     */
    public int size() {
        return HEADER + controlAddress.length + dataAddress.length + privateData.length;
    }

    /**
     * Writes the message at {@code out}'s position in network byte order and advances it.
     *
     * @param out where to write
     * @throws java.nio.BufferOverflowException when fewer than {@link #size()} bytes remain
     */
    public void encode(ByteBuffer out) {
        ByteBuffer b = out.order(ByteOrder.BIG_ENDIAN);
        b.putShort(MAGIC).put(VERSION).put(type.code)
         .putInt(senderEp).putInt(senderSerial).putInt(receiverEp).putInt(receiverSerial).putInt(senderTarget)
         .putLong(qualifier).put(iaAddress).putInt(readDepth)
         .putShort((short) controlAddress.length).putShort((short) dataAddress.length)
         .putShort((short) privateData.length).putShort((short) 0)
         .put(controlAddress).put(dataAddress).put(privateData);
    }

    /**
     * Reads one message of exactly {@code in.remaining()} bytes. Input from the fabric is untrusted: anything that
     * is not a well-formed message of this version is {@code null}, never an exception.
     *
     * @param in the message's bytes, from its position to its limit
     * @return the message, or {@code null}
     */
    public static RdmControl decode(ByteBuffer in) {
        ByteBuffer b = in.slice().order(ByteOrder.BIG_ENDIAN);
        try {
            if (b.remaining() < HEADER || b.remaining() > MAX_SIZE || b.getShort() != MAGIC || b.get() != VERSION) {
                return null;
            }
            Type type = Type.of(b.get());
            int senderEp = b.getInt();
            int senderSerial = b.getInt();
            int receiverEp = b.getInt();
            int receiverSerial = b.getInt();
            int target = b.getInt();
            long qualifier = b.getLong();
            byte[] ia = new byte[16];
            b.get(ia);
            int readDepth = b.getInt();
            int controlLength = Short.toUnsignedInt(b.getShort());
            int dataLength = Short.toUnsignedInt(b.getShort());
            int privateLength = Short.toUnsignedInt(b.getShort());
            short reserved = b.getShort();
            if (type == null || reserved != 0 || controlLength > MAX_ADDRESS || dataLength > MAX_ADDRESS
                || privateLength > MAX_PRIVATE_DATA || b.remaining() != controlLength + dataLength + privateLength) {
                return null;
            }
            byte[] control = new byte[controlLength];
            byte[] data = new byte[dataLength];
            byte[] privateData = new byte[privateLength];
            b.get(control).get(data).get(privateData);
            return new RdmControl(type, senderEp, senderSerial, receiverEp, receiverSerial, target, qualifier, ia,
                                  readDepth, control, data, privateData);
        } catch (BufferUnderflowException e) {
            return null;
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RdmControl m && type == m.type && senderEp == m.senderEp
            && senderSerial == m.senderSerial && receiverEp == m.receiverEp && receiverSerial == m.receiverSerial
            && senderTarget == m.senderTarget && qualifier == m.qualifier && readDepth == m.readDepth
            && Arrays.equals(iaAddress, m.iaAddress) && Arrays.equals(controlAddress, m.controlAddress)
            && Arrays.equals(dataAddress, m.dataAddress)
            && Arrays.equals(privateData, m.privateData);
    }

    @Override
    public int hashCode() {
        return ((type.hashCode() * 31 + senderEp) * 31 + senderSerial) * 31 + Arrays.hashCode(privateData);
    }

    @Override
    public String toString() {
        return type + "[" + senderEp + "/" + Integer.toUnsignedString(senderSerial) + " -> " + receiverEp + "/"
            + Integer.toUnsignedString(receiverSerial) + ", target " + Integer.toHexString(senderTarget)
            + ", qualifier " + qualifier + ", addresses of " + controlAddress.length + " and " + dataAddress.length
            + " bytes, " + privateData.length
            + " private bytes]";
    }
}
