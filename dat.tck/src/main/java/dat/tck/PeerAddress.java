// SPDX-License-Identifier: Apache-2.0
package dat.tck;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Objects;

/**
 * Where a {@link TckPeer} listens: the IA address of its node and its connection qualifier, as the configuration
 * parameter {@value TckContext#PEER} and {@code dat tck --peer} give it ({@code HOST:CONN_QUAL}).
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

    /** {@return {@code HOST:CONN_QUAL}, as {@link #parse} reads it} */
    @Override
    public String toString() {
        String address = host.getHostAddress();
        return (address.indexOf(':') >= 0 ? "[" + address + "]" : address) + ":" + connQual;
    }
}
