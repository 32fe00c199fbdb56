// SPDX-License-Identifier: Apache-2.0
package dat.tck;

import dat.api.DatCloseFlags;
import dat.api.DatIa;
import dat.registry.DatRegistry;
import dat.registry.peer.PeerAddress;
import dat.tck.peer.TckPeer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A {@link TckPeer} on its own thread and its own loopback IA ({@value #IA}, registered through a
 * {@code dat.conf}), as {@code dat tck-peer} would run it on another node: a loopback IA of another name has
 * another address, so the kit's side and the peer only meet through connections.
 */
final class PeerThread implements AutoCloseable {

    /** The peer's IA name. */
    static final String IA = "tckpeer0";

    private final CompletableFuture<PeerAddress> listening = new CompletableFuture<>();
    private final CompletableFuture<TckPeer.Summary> summary = new CompletableFuture<>();
    private final List<TckPeer.SessionReport> reports = new ArrayList<>();
    private final Thread thread;
    private final Breaker.Fault fault;
    private volatile TckPeer peer;

    private PeerThread(long connQual, Duration timeout, Breaker.Fault fault) {
        this.fault = fault;
        thread = Thread.ofPlatform().name("tck-peer-" + connQual).daemon().start(() -> serve(connQual, timeout));
    }

    /**
     * {@return the peer, listening}
     *
     * @param connQual the qualifier to listen on
     * @param timeout how long the peer serves at most
     */
    static PeerThread start(long connQual, Duration timeout) {
        return start(connQual, timeout, null);
    }

    /**
     * {@return the peer, listening}
     *
     * @param connQual the qualifier to listen on
     * @param timeout how long the peer serves at most
     * @param fault how the peer's provider misbehaves (through {@link Breaker}), or {@code null}
     */
    static PeerThread start(long connQual, Duration timeout, Breaker.Fault fault) {
        PeerThread p = new PeerThread(connQual, timeout, fault);
        try {
            p.listening.get(10, TimeUnit.SECONDS);
        } catch (InterruptedException | ExecutionException | TimeoutException e) {
            throw new IllegalStateException("the peer did not start listening", e);
        }
        return p;
    }

    /** {@return the IA of the peer, opened through a {@code dat.conf} naming it} */
    static DatIa openPeerIa() {
        try {
            Path conf = Files.createTempFile("tckpeer", ".conf");
            conf.toFile().deleteOnExit();
            Files.writeString(conf, IA + " u1.2 threadsafe default loopback dapl.1.2 \"\" \"\"\n");
            return DatRegistry.builder().systemConfiguration().datConf(conf).build().open(IA);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void serve(long connQual, Duration timeout) {
        try (DatIa real = openPeerIa()) {
            DatIa ia = fault == null ? real : Breaker.wrap(real, fault);
            try (TckPeer p = TckPeer.open(ia, connQual)) {
                peer = p;
                listening.complete(p.address());
                summary.complete(p.serve(timeout, this::reported));
            } finally {
                ia.close(DatCloseFlags.ABRUPT);
            }
        } catch (RuntimeException | Error e) {
            listening.completeExceptionally(e);
            summary.completeExceptionally(e);
        }
    }

    private synchronized void reported(TckPeer.SessionReport report) {
        reports.add(report);
    }

    /** {@return where the peer listens} */
    PeerAddress address() {
        return listening.join();
    }

    /** {@return the sessions reported so far} */
    synchronized List<TckPeer.SessionReport> reports() {
        return List.copyOf(reports);
    }

    /**
     * {@return the peer's summary}
     *
     * @param wait how long to wait for the peer to stop by itself
     */
    TckPeer.Summary await(Duration wait) {
        try {
            return summary.get(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException | ExecutionException | TimeoutException e) {
            throw new IllegalStateException("the peer did not stop within " + wait + "; sessions: " + reports(), e);
        }
    }

    /** Stops the peer if it still serves and waits for its thread. */
    @Override
    public void close() {
        TckPeer p = peer;
        if (p != null) {
            p.stop();
        }
        try {
            thread.join(TimeUnit.SECONDS.toMillis(20));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
