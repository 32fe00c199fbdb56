// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import static dat.provider.loopback.internal.Loop.expect;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.Dat;
import dat.api.DatCloseFlags;
import dat.api.DatCno;
import dat.api.DatCompletionFlags;
import dat.api.DatDtoStatus;
import dat.api.DatEp;
import dat.api.DatEpAttr;
import dat.api.DatEpParam;
import dat.api.DatEpRecvInfo;
import dat.api.DatEpState;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatException;
import dat.api.DatLmr;
import dat.api.DatMemPriv;
import dat.api.DatPspFlags;
import dat.api.DatQos;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import dat.api.Iov;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LoopbackEpTest {

    private final Loop a = new Loop("loopback0");
    private final Loop b = new Loop("loopback1");
    private final DatEp client = a.ep(DatEpAttr.builder().maxRequestIov(4).maxRecvIov(4).maxRequestDtos(4)
            .maxRecvDtos(4).requestCompletionFlags(DatCompletionFlags.UNSIGNALLED).build());
    private final DatEp server = b.ep(DatEpAttr.builder().maxRequestIov(4).maxRecvIov(4).maxRequestDtos(4)
            .maxRecvDtos(4).build());

    @AfterEach
    void close() {
        a.close();
        b.close();
    }

    private void connect() {
        a.connect(client, b, server);
    }

    private static byte at(DatLmr lmr, long i) {
        return lmr.segment().get(ValueLayout.JAVA_BYTE, i);
    }

    // ---- connection management ----

    @Test
    void connectAcceptExchangesPrivateDataAndAddresses() {
        long qual = Loop.nextQual();
        b.ia.createPsp(qual, b.crEvd, DatPspFlags.CONSUMER);
        client.connect(b.ia.address(), qual, Dat.DAT_TIMEOUT_INFINITE, new byte[] {1, 2}, DatQos.BEST_EFFORT, 0);
        assertEquals(DatEpState.ACTIVE_CONNECTION_PENDING, client.state());
        DatEvent req = expect(b.crEvd, DatEventType.CONNECTION_REQUEST_EVENT);
        assertEquals(qual, req.connQual());
        assertArrayEquals(new byte[] {1, 2}, req.cr().query().privateData());
        assertEquals(a.ia.address(), req.cr().query().remoteIaAddress());
        req.cr().accept(server, new byte[] {9});
        assertTrue(req.cr().isClosed());
        assertArrayEquals(new byte[] {9}, expect(a.connectEvd,
                DatEventType.CONNECTION_EVENT_ESTABLISHED).privateData());
        assertArrayEquals(new byte[] {1, 2}, expect(b.connectEvd,
                DatEventType.CONNECTION_EVENT_ESTABLISHED).privateData());
        assertEquals(DatEpState.CONNECTED, client.state());
        assertEquals(DatEpState.CONNECTED, server.state());
        DatEpParam p = client.query();
        assertEquals(b.ia.address(), p.remoteIaAddress());
        assertEquals(qual, p.remotePortQual());
        DatEpParam q = server.query();
        assertEquals(a.ia.address(), q.remoteIaAddress());
        assertEquals(p.localPortQual(), q.remotePortQual());
    }

    @Test
    void rejectNoListenerAndTimeoutEndInDisconnected() throws Exception {
        long qual = Loop.nextQual();
        b.ia.createPsp(qual, b.crEvd, DatPspFlags.CONSUMER);
        client.connect(b.ia.address(), qual, Dat.DAT_TIMEOUT_INFINITE, null, DatQos.BEST_EFFORT, 0);
        expect(b.crEvd, DatEventType.CONNECTION_REQUEST_EVENT).cr().reject();
        expect(a.connectEvd, DatEventType.CONNECTION_EVENT_PEER_REJECTED);
        assertEquals(DatEpState.DISCONNECTED, client.state());
        client.reset();

        client.connect(b.ia.address(), Loop.nextQual(), Dat.DAT_TIMEOUT_INFINITE, null, DatQos.BEST_EFFORT, 0);
        expect(a.connectEvd, DatEventType.CONNECTION_EVENT_NON_PEER_REJECTED);
        client.reset();

        client.connect(b.ia.address(), qual, 1000, null, DatQos.BEST_EFFORT, 0);
        DatEvent e = new DatEvent();
        assertEquals(DatReturn.DAT_SUCCESS, a.connectEvd.await(5_000_000, 1, e));
        assertEquals(DatEventType.CONNECTION_EVENT_TIMED_OUT, e.type());
        assertEquals(DatEpState.DISCONNECTED, client.state());
        // The late accept finds the requester gone.
        expect(b.crEvd, DatEventType.CONNECTION_REQUEST_EVENT).cr().accept(server, null);
        expect(b.connectEvd, DatEventType.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
        assertEquals(DatEpState.DISCONNECTED, server.state());
    }

    @Test
    void connectChecksItsArguments() {
        DatException e = assertThrows(DatException.class, () -> client.connect(b.ia.address(), 1,
                Dat.DAT_TIMEOUT_INFINITE, new byte[LoopbackConfig.MAX_PRIVATE_DATA_SIZE + 1], DatQos.BEST_EFFORT, 0));
        assertEquals(DatReturn.INVALID_PARAMETER, e.type());
        assertTrue(e.getMessage().contains("max_private_data_size"), e.getMessage());
        assertEquals(DatReturn.INVALID_ADDRESS, assertThrows(DatException.class, () -> client.connect(
                InetAddress.getByAddress(new byte[] {10, 9, 8, 7}), 1, 0, null, DatQos.BEST_EFFORT, 0))
                .type());
        assertEquals(DatReturn.MODEL_NOT_SUPPORTED, assertThrows(DatException.class, () -> client.connect(
                b.ia.address(), 1, 0, null, DatQos.LOW_LATENCY, 0)).type());
        assertEquals(DatReturn.INVALID_PARAMETER, assertThrows(DatException.class, () -> client.connect(
                b.ia.address(), 1, -1, null, DatQos.BEST_EFFORT, 0)).type());
        connect();
        DatException again = assertThrows(DatException.class, () -> client.connect(b.ia.address(), 1,
                Dat.DAT_TIMEOUT_INFINITE, null, DatQos.BEST_EFFORT, 0));
        assertEquals(DatReturn.INVALID_STATE, again.type());
        assertEquals(DatReturnSubtype.INVALID_STATE_EP_CONNECTED, again.subtype());
    }

    @Test
    void createChecksAttributesAndEvdFlags() {
        DatException e = assertThrows(DatException.class, () -> a.ep(DatEpAttr.builder().maxRequestIov(17).build()));
        assertEquals(DatReturn.INVALID_PARAMETER, e.type());
        assertTrue(e.getMessage().contains("max_request_iov 17"), e.getMessage());
        assertEquals(DatReturn.INVALID_PARAMETER, assertThrows(DatException.class, () -> a.ep(DatEpAttr.builder()
                .recvCompletionFlags(DatCompletionFlags.UNSIGNALLED).build())).type());
        DatException evd = assertThrows(DatException.class,
                () -> a.ia.createEp(a.pz, a.connectEvd, a.requestEvd, a.connectEvd, null));
        assertEquals(DatReturn.INVALID_HANDLE, evd.type());
        assertEquals(DatReturnSubtype.INVALID_HANDLE_EVD_RECV, evd.subtype());
        DatException conn = assertThrows(DatException.class,
                () -> a.ia.createEp(a.pz, a.recvEvd, a.requestEvd, a.recvEvd, null));
        assertEquals(DatReturnSubtype.INVALID_HANDLE_EVD_CONN, conn.subtype());
        DatException foreign = assertThrows(DatException.class,
                () -> a.ia.createEp(b.pz, a.recvEvd, a.requestEvd, a.connectEvd, null));
        assertEquals(DatReturn.INVALID_HANDLE, foreign.type());
        assertEquals(DatReturn.MODEL_NOT_SUPPORTED, assertThrows(DatException.class,
                () -> client.setWatermark(1, 2)).type());
    }

    // ---- send / receive ----

    @Test
    void sendFillsReceiveSegmentsInIovOrder() {
        connect();
        DatLmr src = a.lmr(64);
        Loop.fill(src, 1);
        DatLmr dst = b.lmr(64);
        dst.segment().fill((byte) 0x55);
        Iov recv = b.iov(3).set(0, dst, 0, 4).set(1, dst, 10, 8).set(2, dst, 30, 8);
        assertEquals(DatReturn.DAT_SUCCESS, server.postRecv(3, recv, 77, 0));
        Iov send = a.iov(2).set(0, src, 0, 5).set(1, src, 20, 5);
        assertEquals(DatReturn.DAT_SUCCESS, client.postSend(2, send, 42, 0));

        DatEvent r = expect(b.recvEvd, DatEventType.DTO_COMPLETION);
        assertEquals(77, r.userCookie());
        assertEquals(DatDtoStatus.SUCCESS, r.dtoStatus());
        assertEquals(10, r.transferredLength());
        assertSame(server, r.ep());
        DatEvent s = expect(a.requestEvd, DatEventType.DTO_COMPLETION);
        assertEquals(42, s.userCookie());
        assertEquals(10, s.transferredLength());
        // message = src[0..5) + src[20..25); first segment (4) full, second (8) holds 6, third untouched
        byte[] msg = {1, 2, 3, 4, 5, 21, 22, 23, 24, 25};
        for (int i = 0; i < 4; i++) {
            assertEquals(msg[i], at(dst, i));
        }
        for (int i = 0; i < 6; i++) {
            assertEquals(msg[4 + i], at(dst, 10 + i));
        }
        assertEquals(0x55, at(dst, 16));
        assertEquals(0x55, at(dst, 17));
        for (int i = 30; i < 38; i++) {
            assertEquals(0x55, at(dst, i), "segment 3 must stay untouched");
        }
        assertEquals(0x55, at(dst, 4));
    }

    @Test
    void sendWaitsForTheNextReceiveAndKeepsOrder() {
        connect();
        DatLmr src = a.lmr(16);
        DatLmr dst = b.lmr(16);
        Iov iov = a.iov(1);
        for (int i = 0; i < 3; i++) {
            src.segment().set(ValueLayout.JAVA_BYTE, i, (byte) (100 + i));
            assertEquals(DatReturn.DAT_SUCCESS, client.postSend(1, iov.set(0, src, i, 1), i, 0));
        }
        assertFalse(client.getStatus().requestIdle());
        assertEquals(DatReturn.DAT_QUEUE_EMPTY, a.requestEvd.dequeue(new DatEvent()));
        Iov r = b.iov(1);
        for (int i = 0; i < 3; i++) {
            assertEquals(DatReturn.DAT_SUCCESS, server.postRecv(1, r.set(0, dst, i, 1), 10 + i, 0));
            assertEquals(10 + i, expect(b.recvEvd, DatEventType.DTO_COMPLETION).userCookie());
            assertEquals(i, expect(a.requestEvd, DatEventType.DTO_COMPLETION).userCookie());
            assertEquals(100 + i, at(dst, i));
        }
        assertTrue(client.getStatus().requestIdle());
    }

    /**
     * The pingpong race, frozen: the peer's delivery has made our receive's completion visible but still holds
     * its send lock (it completes its own send next). A receive posted now must not try to run the peer's queue,
     * since nothing in it waits for a receive. Before the fix the poster saw the peer's request count and
     * blocked on its send lock; in a real two-thread pingpong that parked the poster on a futex until the peer
     * finished, once per round trip. A CNO agent runs inside the delivery, on the peer's thread with its send
     * lock held, and has another thread post the receive.
     */
    @Test
    void aReceivePostedDuringThePeersDeliveryDoesNotWaitForThePeer() throws Exception {
        AtomicReference<DatEp> receiver = new AtomicReference<>();
        AtomicBoolean once = new AtomicBoolean();
        AtomicReference<String> outcome = new AtomicReference<>("the agent did not run");
        DatLmr dst = a.lmr(16);
        Iov second = a.iov(1).set(0, dst, 8, 8);
        DatCno cno = a.ia.createCno(evd -> {
            if (!once.compareAndSet(false, true)) {
                return;
            }
            CompletableFuture<Integer> posted = new CompletableFuture<>();
            Thread.ofPlatform().start(() -> posted.complete(receiver.get().postRecv(1, second, 2, 0)));
            try {
                outcome.set("postRecv returned " + DatReturn.toString(posted.get(5, TimeUnit.SECONDS)));
            } catch (TimeoutException e) {
                outcome.set("postRecv blocked on the peer's send lock");
            } catch (InterruptedException | ExecutionException e) {
                outcome.set(e.toString());
            }
        });
        DatEvd recvEvd = a.ia.createEvd(16, cno, DatEvdFlags.DTO);
        receiver.set(a.ia.createEp(a.pz, recvEvd, a.requestEvd, a.connectEvd, null));
        a.connect(receiver.get(), b, server);
        assertEquals(DatReturn.DAT_SUCCESS, receiver.get().postRecv(1, a.iov(1).set(0, dst, 0, 8), 1, 0));
        DatLmr src = b.lmr(8);
        assertEquals(DatReturn.DAT_SUCCESS, server.postSend(1, b.iov(1).set(0, src, 0, 8), 9, 0));
        assertEquals("postRecv returned " + DatReturn.toString(DatReturn.DAT_SUCCESS), outcome.get());
        assertEquals(1, expect(recvEvd, DatEventType.DTO_COMPLETION).userCookie());
        assertEquals(new DatEpRecvInfo(1, 1), receiver.get().recvQuery(0x11), "the second receive waits, unused");
    }

    @Test
    void postSendReturnCodesFollowTheSeedPage() {
        DatLmr src = a.lmr(64);
        Iov iov = a.iov(8).set(0, src, 0, 8);
        assertEquals(DatReturn.DAT_INVALID_STATE, client.postSend(1, iov, 0, 0));
        connect();
        assertEquals(DatReturn.DAT_INVALID_PARAMETER, client.postSend(-1, iov, 0, 0));
        assertEquals(DatReturn.DAT_INVALID_PARAMETER, client.postSend(5, iov, 0, 0));
        assertEquals(DatReturn.DAT_INVALID_PARAMETER, client.postSend(1, null, 0, 0));
        assertEquals(DatReturn.DAT_INVALID_PARAMETER, client.postSend(1, iov, 0, 0x40));
        assertEquals(DatReturn.DAT_INVALID_PARAMETER, server.postSend(0, null, 0, DatCompletionFlags.UNSIGNALLED));
        assertEquals(DatReturn.DAT_PRIVILEGES_VIOLATION, client.postSend(1, a.iov(1).set(0, 0x1234, 0, 1), 0, 0));
        DatLmr other = b.lmr(8);
        assertEquals(DatReturn.DAT_PRIVILEGES_VIOLATION, client.postSend(1, a.iov(1).set(0, other, 0, 1), 0, 0),
                "an LMR of another IA is unknown here");
        var pz2 = a.ia.createPz();
        DatLmr foreignPz = a.ia.createLmr(pz2, a.arena.allocate(8), DatMemPriv.ALL);
        assertEquals(DatReturn.DAT_PROTECTION_VIOLATION, client.postSend(1, a.iov(1).set(0, foreignPz, 0, 1), 0, 0));
        DatLmr writeOnly = a.lmr(8, DatMemPriv.LOCAL_WRITE);
        assertEquals(DatReturn.DAT_PRIVILEGES_VIOLATION, client.postSend(1, a.iov(1).set(0, writeOnly, 0, 1), 0, 0));
        assertEquals(DatReturn.DAT_INVALID_PARAMETER, client.postSend(1, a.iov(1).set(0, src, 60, 8), 0, 0));
        DatEp small = a.ep(DatEpAttr.builder().maxMessageSize(4).build());
        DatEp peer = b.ep();
        a.connect(small, b, peer);
        assertEquals(DatReturn.DAT_INVALID_PARAMETER, small.postSend(1, iov, 0, 0),
                "over max_message_size: the post_send page's code for a bad argument");
        for (int i = 0; i < 4; i++) {
            assertEquals(DatReturn.DAT_SUCCESS, client.postSend(1, iov, i, 0));
        }
        assertEquals(DatReturn.DAT_INSUFFICIENT_RESOURCES, client.postSend(1, iov, 9, 0));
        client.disconnect(DatCloseFlags.ABRUPT);
        small.disconnect(DatCloseFlags.ABRUPT);
        client.close();
        assertEquals(DatReturn.DAT_INVALID_HANDLE, client.postSend(1, iov, 0, 0));
        assertEquals(DatReturn.DAT_INVALID_HANDLE, client.postRecv(1, iov, 0, 0));
        foreignPz.close();
        pz2.close();
    }

    @Test
    void postRecvReturnCodes() {
        DatLmr dst = b.lmr(16);
        Iov iov = b.iov(8).set(0, dst, 0, 8);
        assertEquals(DatReturn.DAT_INVALID_PARAMETER, server.postRecv(5, iov, 0, 0));
        assertEquals(DatReturn.DAT_INVALID_PARAMETER, server.postRecv(1, iov, 0, DatCompletionFlags.SOLICITED_WAIT));
        DatLmr readOnly = b.lmr(8, DatMemPriv.LOCAL_READ);
        assertEquals(DatReturn.DAT_PRIVILEGES_VIOLATION, server.postRecv(1, b.iov(1).set(0, readOnly, 0, 8), 0, 0));
        assertEquals(DatReturn.DAT_INVALID_PARAMETER, server.postRecv(1, b.iov(1).set(0, dst, 9, 8), 0, 0));
        for (int i = 0; i < 4; i++) {
            assertEquals(DatReturn.DAT_SUCCESS, server.postRecv(1, iov, i, 0), "receives may be pre-posted");
        }
        assertEquals(DatReturn.DAT_INSUFFICIENT_RESOURCES, server.postRecv(1, iov, 0, 0));
        assertEquals(new DatEpRecvInfo(4, 4), server.recvQuery(0x11));
        assertEquals(new DatEpRecvInfo(4, Dat.DAT_VALUE_UNKNOWN), server.recvQuery(0x01));
        assertEquals(DatReturn.INVALID_PARAMETER, assertThrows(DatException.class, () -> server.recvQuery(0)).type());
        assertEquals(DatReturn.INVALID_PARAMETER, assertThrows(DatException.class, () -> server.recvQuery(2)).type());
    }

    @Test
    void tooLongMessageBreaksTheConnection() {
        connect();
        DatLmr src = a.lmr(32);
        DatLmr dst = b.lmr(32);
        assertEquals(DatReturn.DAT_SUCCESS, server.postRecv(1, b.iov(1).set(0, dst, 0, 4), 1, 0));
        assertEquals(DatReturn.DAT_SUCCESS, server.postRecv(1, b.iov(1).set(0, dst, 4, 4), 2, 0));
        assertEquals(DatReturn.DAT_SUCCESS, client.postSend(1, a.iov(1).set(0, src, 0, 8), 3, 0));
        DatEvent r = expect(b.recvEvd, DatEventType.DTO_COMPLETION);
        assertEquals(DatDtoStatus.LOCAL_LENGTH_ERR, r.dtoStatus());
        assertEquals(DatDtoStatus.REMOTE_RESPONDER_ERR, expect(a.requestEvd, DatEventType.DTO_COMPLETION).dtoStatus());
        assertEquals(DatDtoStatus.FLUSHED, expect(b.recvEvd, DatEventType.DTO_COMPLETION).dtoStatus());
        expect(a.connectEvd, DatEventType.CONNECTION_EVENT_BROKEN);
        expect(b.connectEvd, DatEventType.CONNECTION_EVENT_BROKEN);
        assertEquals(DatEpState.DISCONNECTED, client.state());
        assertEquals(DatEpState.DISCONNECTED, server.state());
    }

    @Test
    void abruptDisconnectFlushesBothSidesAndLaterPostsFlushAtOnce() {
        connect();
        DatLmr src = a.lmr(16);
        DatLmr dst = a.lmr(16);
        assertEquals(DatReturn.DAT_SUCCESS, client.postRecv(1, a.iov(1).set(0, dst, 0, 16), 5, 0));
        assertEquals(DatReturn.DAT_SUCCESS, client.postSend(1, a.iov(1).set(0, src, 0, 16), 6, 0));
        client.disconnect(DatCloseFlags.ABRUPT);
        assertEquals(DatEpState.DISCONNECTED, client.state());
        assertEquals(DatEpState.DISCONNECTED, server.state());
        DatEvent flushedRecv = expect(a.recvEvd, DatEventType.DTO_COMPLETION);
        assertEquals(DatDtoStatus.FLUSHED, flushedRecv.dtoStatus());
        assertEquals(5, flushedRecv.userCookie());
        DatEvent flushedSend = expect(a.requestEvd, DatEventType.DTO_COMPLETION);
        assertEquals(DatDtoStatus.FLUSHED, flushedSend.dtoStatus());
        assertEquals(6, flushedSend.userCookie());
        expect(a.connectEvd, DatEventType.CONNECTION_EVENT_DISCONNECTED);
        expect(b.connectEvd, DatEventType.CONNECTION_EVENT_DISCONNECTED);

        assertEquals(DatReturn.DAT_SUCCESS, client.postSend(1, a.iov(1).set(0, src, 0, 4), 7, 0));
        DatEvent late = expect(a.requestEvd, DatEventType.DTO_COMPLETION);
        assertEquals(DatDtoStatus.FLUSHED, late.dtoStatus());
        assertEquals(7, late.userCookie());
        assertEquals(DatReturn.DAT_SUCCESS, client.postRecv(1, a.iov(1).set(0, dst, 0, 4), 8, 0));
        assertEquals(DatDtoStatus.FLUSHED, expect(a.recvEvd, DatEventType.DTO_COMPLETION).dtoStatus());

        client.reset();
        assertEquals(DatEpState.UNCONNECTED, client.state());
        assertEquals(DatReturn.INVALID_STATE, assertThrows(DatException.class,
                () -> client.disconnect(DatCloseFlags.ABRUPT)).type());
    }

    @Test
    void gracefulDisconnectWaitsForOutstandingRequests() {
        connect();
        DatLmr src = a.lmr(8);
        DatLmr dst = b.lmr(8);
        assertEquals(DatReturn.DAT_SUCCESS, client.postSend(1, a.iov(1).set(0, src, 0, 8), 1, 0));
        client.disconnect(DatCloseFlags.GRACEFUL);
        assertEquals(DatEpState.DISCONNECT_PENDING, client.state());
        assertEquals(DatReturn.DAT_INVALID_STATE, client.postSend(1, a.iov(1).set(0, src, 0, 8), 2, 0));
        assertEquals(DatReturn.DAT_SUCCESS, server.postRecv(1, b.iov(1).set(0, dst, 0, 8), 3, 0));
        assertEquals(DatDtoStatus.SUCCESS, expect(a.requestEvd, DatEventType.DTO_COMPLETION).dtoStatus());
        assertEquals(DatDtoStatus.SUCCESS, expect(b.recvEvd, DatEventType.DTO_COMPLETION).dtoStatus());
        assertEquals(DatEpState.DISCONNECTED, client.state());
        assertEquals(DatEpState.DISCONNECTED, server.state());
        expect(a.connectEvd, DatEventType.CONNECTION_EVENT_DISCONNECTED);
        expect(b.connectEvd, DatEventType.CONNECTION_EVENT_DISCONNECTED);
    }

    @Test
    void suppressAndUnsignalledCompletions() throws Exception {
        connect();
        DatLmr src = a.lmr(8);
        DatLmr dst = b.lmr(8);
        Iov r = b.iov(1).set(0, dst, 0, 8);
        Iov s = a.iov(1).set(0, src, 0, 8);
        server.postRecv(1, r, 1, DatCompletionFlags.SUPPRESS);
        assertEquals(DatReturn.DAT_SUCCESS, client.postSend(1, s, 1, DatCompletionFlags.SUPPRESS));
        assertEquals(DatReturn.DAT_QUEUE_EMPTY, a.requestEvd.dequeue(new DatEvent()));
        assertEquals(DatReturn.DAT_QUEUE_EMPTY, b.recvEvd.dequeue(new DatEvent()));

        server.postRecv(1, r, 2, 0);
        assertEquals(DatReturn.DAT_SUCCESS, client.postSend(1, s, 2, DatCompletionFlags.UNSIGNALLED));
        DatEvent e = new DatEvent();
        // Queued but unsignalled: it does not wake a waiter by itself.
        assertEquals(DatReturn.DAT_TIMEOUT_EXPIRED, a.requestEvd.await(20_000, 1, e));
        assertEquals(DatReturn.DAT_SUCCESS, a.requestEvd.dequeue(e));
        assertEquals(2, e.userCookie());
        Loop.drainAll(b.recvEvd);
    }

    @Test
    void solicitedWaitReceivesWakeOnlyForSolicitedSends() {
        DatEp solicited = b.ep(DatEpAttr.builder().recvCompletionFlags(DatCompletionFlags.SOLICITED_WAIT).build());
        DatEp sender = a.ep();
        a.connect(sender, b, solicited);
        DatLmr src = a.lmr(8);
        DatLmr dst = b.lmr(8);
        solicited.postRecv(1, b.iov(1).set(0, dst, 0, 8), 1, 0);
        solicited.postRecv(1, b.iov(1).set(0, dst, 0, 8), 2, 0);
        sender.postSend(1, a.iov(1).set(0, src, 0, 8), 1, 0);
        DatEvent e = new DatEvent();
        assertEquals(DatReturn.DAT_TIMEOUT_EXPIRED, b.recvEvd.await(20_000, 1, e));
        sender.postSend(1, a.iov(1).set(0, src, 0, 8), 2, DatCompletionFlags.SOLICITED_WAIT);
        assertEquals(DatReturn.DAT_SUCCESS, b.recvEvd.await(1_000_000, 1, e));
        assertEquals(1, e.userCookie());
        assertEquals(1, e.nmore());
    }

    @Test
    void zeroLengthMessagesNeedNoIov() {
        connect();
        assertEquals(DatReturn.DAT_SUCCESS, server.postRecv(0, null, 1, 0));
        assertEquals(DatReturn.DAT_SUCCESS, client.postSend(0, null, 2, 0));
        assertEquals(0, expect(b.recvEvd, DatEventType.DTO_COMPLETION).transferredLength());
        assertEquals(2, expect(a.requestEvd, DatEventType.DTO_COMPLETION).userCookie());
    }

    @Test
    void modifyResizesQueuesOnlyWhenUnconnected() {
        DatLmr dst = a.lmr(8);
        client.postRecv(1, a.iov(1).set(0, dst, 0, 8), 1, 0);
        client.postRecv(1, a.iov(1).set(0, dst, 0, 8), 2, 0);
        DatException below = assertThrows(DatException.class,
                () -> client.modify(DatEpAttr.builder().maxRecvDtos(1).build()));
        assertEquals(DatReturn.INVALID_PARAMETER, below.type());
        client.modify(DatEpAttr.builder().maxRecvDtos(8).maxRequestIov(2).build());
        assertEquals(8, client.query().epAttr().maxRecvDtos());
        assertEquals(new DatEpRecvInfo(2, 2), client.recvQuery(0x11));
        connect();
        assertEquals(DatReturn.INVALID_STATE, assertThrows(DatException.class,
                () -> client.modify(DatEpAttr.builder().build())).type());
        DatLmr src = b.lmr(8);
        server.postSend(1, b.iov(1).set(0, src, 0, 8), 9, 0);
        assertEquals(1, expect(a.recvEvd, DatEventType.DTO_COMPLETION).userCookie(), "the kept receive is used");
    }

    @Test
    void closingAConnectedEpDisconnectsThePeer() {
        connect();
        DatLmr dst = b.lmr(8);
        server.postRecv(1, b.iov(1).set(0, dst, 0, 8), 4, 0);
        client.close();
        client.close();
        assertTrue(client.isClosed());
        assertEquals(DatEpState.DISCONNECTED, server.state());
        assertEquals(DatDtoStatus.FLUSHED, expect(b.recvEvd, DatEventType.DTO_COMPLETION).dtoStatus());
        expect(b.connectEvd, DatEventType.CONNECTION_EVENT_DISCONNECTED);
        assertEquals(DatReturn.INVALID_HANDLE, assertThrows(DatException.class, client::query).type());
    }

    @Test
    void dupConnectReachesTheSameListener() {
        long qual = Loop.nextQual();
        b.ia.createPsp(qual, b.crEvd, DatPspFlags.CONSUMER);
        client.connect(b.ia.address(), qual, Dat.DAT_TIMEOUT_INFINITE, null, DatQos.BEST_EFFORT, 0);
        expect(b.crEvd, DatEventType.CONNECTION_REQUEST_EVENT).cr().accept(server, null);
        Loop.drainAll(a.connectEvd);
        DatEp second = a.ep();
        second.dupConnect(client, Dat.DAT_TIMEOUT_INFINITE, null, DatQos.BEST_EFFORT);
        assertEquals(qual, expect(b.crEvd, DatEventType.CONNECTION_REQUEST_EVENT).connQual());
        second.disconnect(DatCloseFlags.ABRUPT);
        assertEquals(DatEpState.DISCONNECTED, second.state());
    }

    @Test
    void recvCompletionsHandBackTheExactSegment() {
        connect();
        DatLmr src = a.lmr(128);
        DatLmr dst = b.lmr(128);
        MemorySegment.copy(new byte[] {7, 7, 7}, 0, src.segment(), ValueLayout.JAVA_BYTE, 100, 3);
        server.postRecv(1, b.iov(1).set(0, dst, 64, 64), 1, 0);
        client.postSend(1, a.iov(1).set(0, src, 100, 3), 1, 0);
        assertEquals(3, expect(b.recvEvd, DatEventType.DTO_COMPLETION).transferredLength());
        assertEquals(7, at(dst, 64));
        assertEquals(7, at(dst, 66));
        assertEquals(0, at(dst, 67));
        assertEquals(0, at(dst, 63));
    }

    @Test
    void requestEvdWithoutDtoFlagIsRejected() {
        var noDto = a.ia.createEvd(4, null, DatEvdFlags.SOFTWARE);
        DatException e = assertThrows(DatException.class,
                () -> a.ia.createEp(a.pz, a.recvEvd, noDto, a.connectEvd, null));
        assertEquals(DatReturnSubtype.INVALID_HANDLE_EVD_REQUEST, e.subtype());
    }
}
