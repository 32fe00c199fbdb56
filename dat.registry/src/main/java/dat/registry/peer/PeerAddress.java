// SPDX-License-Identifier: Apache-2.0
package dat.registry.peer;

import dat.api.DatEp;
import dat.api.DatEvd;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatQos;
import dat.api.DatReturn;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Where a peer on another node listens: the IA address of its node and its connection qualifier
 * ({@code HOST:CONN_QUAL}), as the kit's configuration parameter {@code dat.tck.peer}, {@code dat tck --peer} and
 * {@code dat perf --peer} give it. Both the kit's peer ({@code dat tck-peer}) and {@code dat perf} listen at one and
 * connect to one, so it lives here, beside the registry both read, and not in the kit: {@code dat perf} needs no
 * part of the conformance kit.
 *
 * @param host the peer's IA address
 * @param connQual the qualifier of its PSP
 */
public record PeerAddress(InetAddress host, long connQual) {

    /** Checks the fields. */
    public PeerAddress {
        Objects.requireNonNull(host, "host");
        if (connQual < 0) {
            throw new IllegalArgumentException("conn_qual " + connQual + " is negative");
        }
    }

    /**
     * Parses {@code HOST:CONN_QUAL}: an IPv4 address or host name, or an IPv6 address in brackets
     * ({@code [fe80::1]:7471}), then a decimal qualifier.
     *
     * @param text the text
     * @return the address
     * @throws IllegalArgumentException saying what is wrong with the text
     */
    public static PeerAddress parse(String text) {
        Objects.requireNonNull(text, "text");
        int colon = text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            throw new IllegalArgumentException("peer '" + text + "' is not HOST:CONN_QUAL");
        }
        String host = text.substring(0, colon);
        String qual = text.substring(colon + 1);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        } else if (host.indexOf(':') >= 0) {
            throw new IllegalArgumentException("peer '" + text
                    + "': put an IPv6 address in brackets, [ADDRESS]:CONN_QUAL");
        }
        if (host.isBlank()) {
            throw new IllegalArgumentException("peer '" + text + "' names no host");
        }
        long connQual;
        try {
            connQual = Long.parseLong(qual);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("peer '" + text + "': conn_qual '" + qual + "' is not a number", e);
        }
        if (connQual < 0) {
            throw new IllegalArgumentException("peer '" + text + "': conn_qual " + connQual + " is negative");
        }
        try {
            return new PeerAddress(InetAddress.getByName(host), connQual);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("peer '" + text + "': unknown host '" + host + "'", e);
        }
    }

    /** Pause between two connection attempts while the peer is not listening yet. */
    static final long CONNECT_RETRY_MILLIS = 500;
    /** How long one connection attempt may take ({@code dat_ep_connect}'s timeout). */
    static final long CONNECT_ATTEMPT_MICROS = TimeUnit.SECONDS.toMicros(5);

    /**
     * Connects {@code ep} to this address, again and again while the peer is not listening yet (any connection
     * event other than ESTABLISHED ends an attempt: rejected, unreachable, timed out), until the deadline. The peer
     * of a two-node run is started on the other node at about the same time, so the first attempts may come too
     * early.
     *
     * @param ep an unconnected endpoint; reset between attempts
     * @param connectEvd its connection EVD
     * @param event receives the ESTABLISHED event (its private data is the accept's)
     * @param privateData sent with each request, or {@code null}
     * @param deadlineNanos {@link System#nanoTime()} after which no attempt starts and none is waited for
     * @param attempts counts how the attempts ended, by event type
     * @return {@code true} once connected; {@code false} at the deadline
     * @throws InterruptedException when interrupted between attempts
     */
    public boolean connect(DatEp ep, DatEvd connectEvd, DatEvent event, byte[] privateData, long deadlineNanos,
                           Map<DatEventType, Integer> attempts) throws InterruptedException {
        while (System.nanoTime() - deadlineNanos < 0) {
            ep.connect(host, connQual, CONNECT_ATTEMPT_MICROS, privateData, DatQos.BEST_EFFORT, 0);
            long left = TimeUnit.NANOSECONDS.toMicros(deadlineNanos - System.nanoTime());
            if (left <= 0 || connectEvd.await(left, 1, event) != DatReturn.DAT_SUCCESS) {
                return false;
            }
            attempts.merge(event.type(), 1, Integer::sum);
            if (event.type() == DatEventType.CONNECTION_EVENT_ESTABLISHED) {
                return true;
            }
            ep.reset();
            Thread.sleep(CONNECT_RETRY_MILLIS);
        }
        return false;
    }

    /** {@return {@code HOST:CONN_QUAL}, as {@link #parse} reads it} */
    @Override
    public String toString() {
        String address = host.getHostAddress();
        return (address.indexOf(':') >= 0 ? "[" + address + "]" : address) + ":" + connQual;
    }
}
