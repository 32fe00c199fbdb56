// SPDX-License-Identifier: Apache-2.0
package dat.tck.rules;

import dat.registry.peer.PeerAddress;
import dat.tck.TckContext;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.zip.CRC32C;

/**
 * The wire format between the kit's cross-node rules ({@link CrossNodeRules}) and the peer responder
 * ({@code dat.tck.peer.TckPeer}): what a connection request asks, what the accept answers, and the command messages of
 * an {@link #EXPOSE} session. Everything travels over DAT itself, in private data and messages; integers are
 * big-endian.
 *
 * <p>Private data is at most {@value #PRIVATE_DATA_SIZE} bytes each way, under the 56 bytes an rdma_cm connect
 * request carries on InfiniBand and RoCE. A transport may hand private data over zero-padded to its fixed field
 * size (IB CM does), so a reader accepts longer private data whose extra bytes are all zero.
 *
 * <p>The request, in the private data of {@code dat_ep_connect}:
 * <pre>
 *  0        4    5    6         8                  16                 24        28                  44       48
 *  +--------+----+----+---------+------------------+------------------+---------+-------------------+--------+
 *  | magic  |ver |cmd |  zero   |      token       |       arg        |  arg2   | filler (16 bytes) | crc32c |
 *  +--------+----+----+---------+------------------+------------------+---------+-------------------+--------+
 * </pre>
 * {@code token} is chosen by the requester and names the session; {@code arg} and {@code arg2} are the command's
 * arguments; the filler is derived from the token (see {@link #fillerByte}) so that every byte carries something
 * checkable; {@code crc32c} covers bytes 0..43.
 *
 * <p>The accept, in the private data of {@code dat_cr_accept}:
 * <pre>
 *  0        4    5    6         8                  16        20        24                 32                 40
 *  44       48
 *  +--------+----+----+---------+------------------+---------+---------+------------------+------------------+--------+--------+
 *  | magic  |ver |cmd |  zero   |  token (echoed)  | req crc |rmr_ctx  |      value1      |      value2      | value3 |
 *  crc32c |
 *  +--------+----+----+---------+------------------+---------+---------+------------------+------------------+--------+--------+
 * </pre>
 * {@code req crc} is the CRC32C of the whole request as the responder received it (bytes 0..47), so the requester
 * learns that its private data arrived intact; {@code crc32c} covers bytes 0..43 of the accept.
 *
 * <p>A command message of an {@link #EXPOSE} session (requester to responder, a send of exactly
 * {@value #COMMAND_SIZE} bytes; the answer to {@link #BIND_WINDOW} has the same form):
 * <pre>
 *  0        4        8                  16                 24
 *  +--------+--------+------------------+------------------+
 *  | magic  |   op   |      offset      |      length      |
 *  +--------+--------+------------------+------------------+
 * </pre>
 *
 * <p>Commands, with their arguments and what the accept's values mean:
 * <table>
 * <caption>Commands</caption>
 * <tr><th>command</th><th>arg, arg2</th><th>the responder</th><th>accept values</th></tr>
 * <tr><td>{@link #ECHO}</td><td>largest message the requester will send; -</td><td>posts receives before
 *     accepting and sends every message back as it arrived, in order</td><td>value1 = largest message,
 *     value2 = messages that may be in flight</td></tr>
 * <tr><td>{@link #REJECT}</td><td>-; -</td><td>calls {@code dat_cr_reject} (DAT 1.2's reject carries no private
 *     data)</td><td>none: the requester sees {@code DAT_CONNECTION_EVENT_PEER_REJECTED}</td></tr>
 * <tr><td>{@link #DISCONNECT}</td><td>-; -</td><td>accepts, and on the first message calls
 *     {@code dat_ep_disconnect} (graceful) from its side</td><td>-</td></tr>
 * <tr><td>{@link #EXPOSE}</td><td>region length; pattern seed</td><td>registers a region with remote read and
 *     write, filled with {@link TckFixture#patternByte}{@code (seed, i)}, and serves {@link #SEND_BACK}
 *     commands</td><td>rmr_ctx, value1 = address, value2 = length, value3 = seed</td></tr>
 * <tr><td>{@link #FREE_QUAL}</td><td>-; -</td><td>finds a connection qualifier nothing listens on at its
 *     IA</td><td>value1 = that qualifier</td></tr>
 * <tr><td>{@link #STATUS}</td><td>token of an earlier session; how long to wait for it to end, in ms</td>
 *     <td>accepts once that session ended, or when the wait is over</td><td>value1 = messages that session
 *     handled, value3 = its outcome ({@link #OUTCOME_UNKNOWN}...)</td></tr>
 * <tr><td>{@link #BYE}</td><td>-; -</td><td>accepts, and stops once this connection ends</td><td>value1 =
 *     sessions served before, value2 = those of them that failed</td></tr>
 * </table>
 * Every session but {@link #REJECT} ends when either side disconnects.
 */
public final class PeerProtocol {

    private PeerProtocol() {
    }

    /** "jDAT" in ASCII: the first four bytes of every request, accept and command message. */
    public static final int MAGIC = 0x6A444154;
    /** Protocol version. */
    public static final int VERSION = 1;
    /** Bytes of a request and of an accept. */
    public static final int PRIVATE_DATA_SIZE = 48;
    /** Bytes of an {@link #EXPOSE} command message. */
    public static final int COMMAND_SIZE = 24;

    /** Command: echo every message. */
    public static final int ECHO = 1;
    /** Command: reject the connection request. */
    public static final int REJECT = 2;
    /** Command: accept, then disconnect from the responder's side on the first message. */
    public static final int DISCONNECT = 3;
    /** Command: expose a registered region for RDMA. */
    public static final int EXPOSE = 4;
    /** Command: name a connection qualifier nothing listens on. */
    public static final int FREE_QUAL = 5;
    /** Command: report how an earlier session ended. */
    public static final int STATUS = 6;
    /** Command: the requester's run is over; stop. */
    public static final int BYE = 7;

    /** Operation of an {@link #EXPOSE} command message: send {@code length} bytes of the region from {@code offset}. */
    public static final int SEND_BACK = 1;
    /**
     * Operation of an {@link #EXPOSE} command message: bind an RMR onto {@code [offset, offset + length)} of the region
     * for remote read and write over this connection, then answer with a {@link #WINDOW_BOUND} message (or
     * {@link #NO_WINDOW} when the peer's IA has no RMRs).
     */
    public static final int BIND_WINDOW = 2;
    /** Answer to {@link #BIND_WINDOW}: {@code offset} holds the window's rmr_context, {@code length} its address. */
    public static final int WINDOW_BOUND = 3;
    /** Answer to {@link #BIND_WINDOW}: the peer's IA reports {@code max_rmrs} 0. */
    public static final int NO_WINDOW = 4;

    /** Outcome reported by {@link #STATUS}: no session had that token. */
    public static final int OUTCOME_UNKNOWN = 0;
    /** Outcome: the session was still connected when the wait ended. */
    public static final int OUTCOME_RUNNING = 1;
    /** Outcome: the requester disconnected, and the responder saw {@code DAT_CONNECTION_EVENT_DISCONNECTED}. */
    public static final int OUTCOME_REMOTE_DISCONNECT = 2;
    /** Outcome: the responder disconnected as asked, and saw its own {@code DAT_CONNECTION_EVENT_DISCONNECTED}. */
    public static final int OUTCOME_LOCAL_DISCONNECT = 3;
    /** Outcome: the responder rejected the request as asked. */
    public static final int OUTCOME_REJECTED = 4;
    /** Outcome: the session failed (bad input, an error completion, a broken connection). */
    public static final int OUTCOME_FAILED = 5;

    /** Largest region an {@link #EXPOSE} request may ask for. */
    public static final long EXPOSE_MAX_LENGTH = 1 << 20;
    /** Longest wait a {@link #STATUS} request may ask for, in milliseconds. */
    public static final int STATUS_MAX_WAIT_MILLIS = 60_000;

    static final int OFFSET_MAGIC = 0;
    static final int OFFSET_VERSION = 4;
    static final int OFFSET_COMMAND = 5;
    static final int OFFSET_TOKEN = 8;
    static final int OFFSET_ARG = 16;
    static final int OFFSET_ARG2 = 24;
    static final int OFFSET_FILLER = 28;
    static final int OFFSET_REQUEST_CRC = 16;
    static final int OFFSET_RMR_CONTEXT = 20;
    static final int OFFSET_VALUE1 = 24;
    static final int OFFSET_VALUE2 = 32;
    static final int OFFSET_VALUE3 = 40;
    static final int OFFSET_CRC = 44;

    /** A malformed request, accept or command message; the message says which field and why. */
    public static final class ProtocolException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        /**
         * @param message which field is wrong and why
         */
        public ProtocolException(String message) {
            super(message);
        }
    }

    /**
     * A decoded request.
     *
     * @param command the command
     * @param token the requester's session token
     * @param arg the first argument
     * @param arg2 the second argument
     * @param crc the CRC32C of the 48 request bytes, as {@link Accept#requestCrc()} reports it
     */
    public record Request(int command, long token, long arg, int arg2, int crc) {
    }

    /**
     * A decoded accept.
     *
     * @param command the command it answers
     * @param token the echoed token
     * @param requestCrc the CRC32C of the request as the responder received it
     * @param rmrContext the {@code rmr_context} of an {@link #EXPOSE} region
     * @param value1 first value
     * @param value2 second value
     * @param value3 third value
     */
    public record Accept(int command, long token, int requestCrc, int rmrContext, long value1, long value2,
                         int value3) {
    }

    /**
     * A decoded {@link #EXPOSE} command message.
     *
     * @param op the operation
     * @param offset offset in the region
     * @param length bytes
     */
    public record Command(int op, long offset, long length) {
    }

    /**
     * {@return the command's name, or {@code command 9} for an unknown one}
     *
     * @param command a command constant
     */
    public static String commandName(int command) {
        return switch (command) {
            case ECHO -> "ECHO";
            case REJECT -> "REJECT";
            case DISCONNECT -> "DISCONNECT";
            case EXPOSE -> "EXPOSE";
            case FREE_QUAL -> "FREE_QUAL";
            case STATUS -> "STATUS";
            case BYE -> "BYE";
            default -> "command " + command;
        };
    }

    /**
     * {@return how the session ended, in words}
     *
     * @param outcome an outcome constant
     */
    public static String outcomeName(int outcome) {
        return switch (outcome) {
            case OUTCOME_UNKNOWN -> "unknown session";
            case OUTCOME_RUNNING -> "still connected";
            case OUTCOME_REMOTE_DISCONNECT -> "ended by the remote disconnect";
            case OUTCOME_LOCAL_DISCONNECT -> "ended by the peer's disconnect";
            case OUTCOME_REJECTED -> "rejected as asked";
            case OUTCOME_FAILED -> "failed";
            default -> "outcome " + outcome;
        };
    }

    /**
     * {@return the filler byte the request carries at {@code index}}
     *
     * @param token the request's token
     * @param index a filler byte's index, 0..15
     */
    public static byte fillerByte(long token, int index) {
        return (byte) ((token >>> (8 * (index & 7))) ^ (0x5A + 17 * index));
    }

    /**
     * Encodes a request.
     *
     * @param command the command
     * @param token the session token
     * @param arg the first argument
     * @param arg2 the second argument
     * @return the {@value #PRIVATE_DATA_SIZE} bytes
     */
    public static byte[] request(int command, long token, long arg, int arg2) {
        ByteBuffer b = ByteBuffer.allocate(PRIVATE_DATA_SIZE);
        b.putInt(OFFSET_MAGIC, MAGIC).put(OFFSET_VERSION, (byte) VERSION).put(OFFSET_COMMAND, (byte) command)
                .putLong(OFFSET_TOKEN, token).putLong(OFFSET_ARG, arg).putInt(OFFSET_ARG2, arg2);
        for (int i = 0; i < OFFSET_CRC - OFFSET_FILLER; i++) {
            b.put(OFFSET_FILLER + i, fillerByte(token, i));
        }
        b.putInt(OFFSET_CRC, crc(b.array(), OFFSET_CRC));
        return b.array();
    }

    /**
     * Decodes and checks a request.
     *
     * @param privateData the private data of the connection request
     * @return the request
     * @throws ProtocolException naming the first field that is wrong
     */
    public static Request parseRequest(byte[] privateData) {
        byte[] data = fixedSize(privateData, "request");
        ByteBuffer b = ByteBuffer.wrap(data);
        checkHeader(b, "request");
        int stored = b.getInt(OFFSET_CRC);
        int computed = crc(data, OFFSET_CRC);
        if (stored != computed) {
            throw new ProtocolException("request private data: CRC32C " + hex(stored) + " does not match "
                    + hex(computed) + " computed over bytes 0..43: the request changed on the way");
        }
        long token = b.getLong(OFFSET_TOKEN);
        for (int i = 0; i < OFFSET_CRC - OFFSET_FILLER; i++) {
            if (data[OFFSET_FILLER + i] != fillerByte(token, i)) {
                throw new ProtocolException("request private data: filler byte " + (OFFSET_FILLER + i) + " is "
                        + data[OFFSET_FILLER + i] + ", expected " + fillerByte(token, i));
            }
        }
        return new Request(b.get(OFFSET_COMMAND), token, b.getLong(OFFSET_ARG), b.getInt(OFFSET_ARG2),
                crc(data, PRIVATE_DATA_SIZE));
    }

    /**
     * Encodes an accept.
     *
     * @param request the request it answers
     * @param rmrContext {@code rmr_context}, or 0
     * @param value1 first value
     * @param value2 second value
     * @param value3 third value
     * @return the {@value #PRIVATE_DATA_SIZE} bytes
     */
    public static byte[] accept(Request request, int rmrContext, long value1, long value2, int value3) {
        ByteBuffer b = ByteBuffer.allocate(PRIVATE_DATA_SIZE);
        b.putInt(OFFSET_MAGIC, MAGIC).put(OFFSET_VERSION, (byte) VERSION).put(OFFSET_COMMAND, (byte) request.command())
                .putLong(OFFSET_TOKEN, request.token()).putInt(OFFSET_REQUEST_CRC, request.crc())
                .putInt(OFFSET_RMR_CONTEXT, rmrContext).putLong(OFFSET_VALUE1, value1).putLong(OFFSET_VALUE2, value2)
                .putInt(OFFSET_VALUE3, value3);
        b.putInt(OFFSET_CRC, crc(b.array(), OFFSET_CRC));
        return b.array();
    }

    /**
     * Decodes an accept and checks it against the request it answers.
     *
     * @param privateData the private data of the active side's {@code DAT_CONNECTION_EVENT_ESTABLISHED}
     * @param request the request bytes that were sent
     * @return the accept
     * @throws ProtocolException naming the first field that is wrong
     */
    public static Accept parseAccept(byte[] privateData, byte[] request) {
        byte[] data = fixedSize(privateData, "accept");
        ByteBuffer b = ByteBuffer.wrap(data);
        checkHeader(b, "accept");
        int stored = b.getInt(OFFSET_CRC);
        int computed = crc(data, OFFSET_CRC);
        if (stored != computed) {
            throw new ProtocolException("accept private data: CRC32C " + hex(stored) + " does not match "
                    + hex(computed) + " computed over bytes 0..43: the accept changed on the way");
        }
        ByteBuffer sent = ByteBuffer.wrap(request);
        if (b.get(OFFSET_COMMAND) != sent.get(OFFSET_COMMAND)) {
            throw new ProtocolException("accept private data: answers " + commandName(b.get(OFFSET_COMMAND))
                    + ", but the request was " + commandName(sent.get(OFFSET_COMMAND)));
        }
        if (b.getLong(OFFSET_TOKEN) != sent.getLong(OFFSET_TOKEN)) {
            throw new ProtocolException("accept private data: token 0x" + Long.toHexString(b.getLong(OFFSET_TOKEN))
                    + " is not the request's 0x" + Long.toHexString(sent.getLong(OFFSET_TOKEN)));
        }
        int requestCrc = crc(request, PRIVATE_DATA_SIZE);
        if (b.getInt(OFFSET_REQUEST_CRC) != requestCrc) {
            throw new ProtocolException("the peer received request private data with CRC32C "
                    + hex(b.getInt(OFFSET_REQUEST_CRC)) + ", but the request sent has " + hex(requestCrc)
                    + ": the request changed on the way");
        }
        return new Accept(b.get(OFFSET_COMMAND), b.getLong(OFFSET_TOKEN), b.getInt(OFFSET_REQUEST_CRC),
                b.getInt(OFFSET_RMR_CONTEXT), b.getLong(OFFSET_VALUE1), b.getLong(OFFSET_VALUE2),
                b.getInt(OFFSET_VALUE3));
    }

    /**
     * Encodes an {@link #EXPOSE} command message into {@code into}.
     *
     * @param into at least {@value #COMMAND_SIZE} bytes
     * @param op the operation
     * @param offset offset in the region
     * @param length bytes
     */
    public static void command(ByteBuffer into, int op, long offset, long length) {
        into.putInt(0, MAGIC).putInt(4, op).putLong(8, offset).putLong(16, length);
    }

    /**
     * Decodes an {@link #EXPOSE} command message.
     *
     * @param message the bytes received
     * @return the command
     * @throws ProtocolException when it is not a command message
     */
    public static Command parseCommand(ByteBuffer message) {
        if (message.remaining() != COMMAND_SIZE) {
            throw new ProtocolException("command message of " + message.remaining() + " bytes; the protocol's is "
                    + COMMAND_SIZE);
        }
        int magic = message.getInt(message.position());
        if (magic != MAGIC) {
            throw new ProtocolException("command message: magic " + hex(magic) + " is not " + hex(MAGIC));
        }
        return new Command(message.getInt(message.position() + 4), message.getLong(message.position() + 8),
                message.getLong(message.position() + 16));
    }

    /**
     * {@return the CRC32C of the first {@code length} bytes}
     *
     * @param data bytes
     * @param length how many of them, from the start
     */
    public static int crc(byte[] data, int length) {
        CRC32C crc = new CRC32C();
        crc.update(data, 0, length);
        return (int) crc.getValue();
    }

    /** The bytes of the verbs provider's length trailer ({@code 'j' 'D' n ~n}, docs/verbs.md). */
    private static final int LENGTH_TRAILER = 4;

    /**
     * {@return whether the field ends with jDAT's verbs length trailer for exactly the protocol's bytes} jDAT's
     * verbs provider sends rdma_cm's whole zero-padded field and ends it with {@code 'j' 'D' n ~n} (docs/verbs.md,
     * "Connection wire format"); a receiver that does not read it, a C uDAPL provider's and so jDAT's bridge to one,
     * reports it as padding. It is padding here too, but only when it names the protocol's own length.
     */
    private static boolean lengthTrailer(byte[] field) {
        int at = field.length - LENGTH_TRAILER;
        return at >= PRIVATE_DATA_SIZE && field[at] == 'j' && field[at + 1] == 'D'
                && field[at + 2] == (byte) PRIVATE_DATA_SIZE && field[at + 3] == (byte) ~PRIVATE_DATA_SIZE;
    }

    private static byte[] fixedSize(byte[] privateData, String what) {
        if (privateData == null || privateData.length < PRIVATE_DATA_SIZE) {
            throw new ProtocolException(what + " private data of " + (privateData == null ? 0 : privateData.length)
                    + " bytes; the protocol's " + what + " is " + PRIVATE_DATA_SIZE);
        }
        int padded = privateData.length - (lengthTrailer(privateData) ? LENGTH_TRAILER : 0);
        for (int i = PRIVATE_DATA_SIZE; i < padded; i++) {
            if (privateData[i] != 0) {
                throw new ProtocolException(what + " private data of " + privateData.length + " bytes: byte " + i
                        + " beyond the protocol's " + PRIVATE_DATA_SIZE + " is " + privateData[i]
                        + ", not zero padding");
            }
        }
        return Arrays.copyOf(privateData, PRIVATE_DATA_SIZE);
    }

    private static void checkHeader(ByteBuffer b, String what) {
        int magic = b.getInt(OFFSET_MAGIC);
        if (magic != MAGIC) {
            throw new ProtocolException(what + " private data: magic " + hex(magic) + " is not the protocol's "
                    + hex(MAGIC) + " (\"jDAT\")");
        }
        if (b.get(OFFSET_VERSION) != VERSION) {
            throw new ProtocolException(what + " private data: version " + b.get(OFFSET_VERSION) + ", expected "
                    + VERSION);
        }
        if (b.getShort(OFFSET_COMMAND + 1) != 0) {
            throw new ProtocolException(what + " private data: bytes 6..7 are " + hex(b.getShort(OFFSET_COMMAND + 1))
                    + ", expected zero");
        }
    }

    private static String hex(int value) {
        return String.format(Locale.ROOT, "0x%08x", value);
    }

    /**
     * {@return the remote peer the cross-node rules talk to, if {@value TckContext#PEER} is set}
     *
     * @param context the run's settings
     * @throws IllegalArgumentException when {@value TckContext#PEER} is not {@code HOST:CONN_QUAL}
     */
    public static Optional<PeerAddress> peer(TckContext context) {
        return context.parameters().apply(TckContext.PEER).filter(text -> !text.isBlank()).map(text -> {
            try {
                return PeerAddress.parse(text.strip());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(TckContext.PEER + ": " + e.getMessage(), e);
            }
        });
    }
}
