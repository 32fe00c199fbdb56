// SPDX-License-Identifier: Apache-2.0
package dat.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.mockito.Mockito.mock;

import org.junit.jupiter.api.Test;

class DatEventTest {

    private final DatEvd evd = mock(DatEvd.class);
    private final DatEp ep = mock(DatEp.class);

    @Test
    void writingAnEventClearsEveryFieldOfTheEarlierOne() {
        DatEvent event = new DatEvent();
        event.setDtoCompletion(evd, ep, 42, DatDtoStatus.SUCCESS, 4096).nmore(3);
        event.setSoftwareEvent(evd, 7);
        assertSame(DatEventType.SOFTWARE_EVENT, event.type());
        assertEquals(7, event.softwareEventValue());
        assertNull(event.ep());
        assertEquals(0, event.userCookie());
        assertNull(event.dtoStatus());
        assertEquals(0, event.transferredLength());
        assertEquals(0, event.nmore());
        assertEquals(0, event.privateData().length);
    }

    @Test
    void aDtoCompletionAfterAnotherKindClearsThatKind() {
        DatEvent event = new DatEvent();
        event.setConnectionEvent(DatEventType.CONNECTION_EVENT_ESTABLISHED, evd, ep, new byte[] {1, 2});
        event.setDtoCompletion(evd, ep, 1, DatDtoStatus.SUCCESS, 8);
        assertEquals(0, event.privateData().length);
        event.setAsyncEvent(DatEventType.ASYNC_ERROR_EVD_OVERFLOW, evd, evd, 5);
        event.setDtoCompletion(evd, ep, 2, DatDtoStatus.SUCCESS, 8);
        assertNull(event.asyncHandle());
        assertEquals(0, event.asyncReason());
        DatRmr rmr = mock(DatRmr.class);
        event.setRmrBindCompletion(evd, rmr, 3, DatDtoStatus.SUCCESS);
        event.setDtoCompletion(evd, ep, 4, DatDtoStatus.SUCCESS, 8);
        assertNull(event.rmr());
        event.setConnectionRequest(evd, mock(DatPsp.class), 77, mock(DatCr.class));
        event.setDtoCompletion(evd, ep, 5, DatDtoStatus.SUCCESS, 8);
        assertNull(event.sp());
        assertNull(event.cr());
        assertEquals(0, event.connQual());
        event.setSoftwareEvent(evd, 9);
        event.setDtoCompletion(evd, ep, 6, DatDtoStatus.SUCCESS, 8);
        assertEquals(0, event.softwareEventValue());
    }

    @Test
    void aDtoCompletionAfterADtoCompletionReplacesItsFieldsTheEvdAndNmore() {
        DatEvd other = mock(DatEvd.class);
        DatEp otherEp = mock(DatEp.class);
        DatEvent event = new DatEvent();
        event.setDtoCompletion(evd, ep, 42, DatDtoStatus.SUCCESS, 4096).nmore(3);
        event.setDtoCompletion(other, otherEp, 43, DatDtoStatus.FLUSHED, 0);
        assertSame(DatEventType.DTO_COMPLETION, event.type());
        assertSame(other, event.evd());
        assertSame(otherEp, event.ep());
        assertEquals(43, event.userCookie());
        assertSame(DatDtoStatus.FLUSHED, event.dtoStatus());
        assertEquals(0, event.transferredLength());
        assertEquals(0, event.nmore());
        DatEvent copy = new DatEvent().setDtoCompletion(evd, ep, 1, DatDtoStatus.SUCCESS, 1);
        copy.copyFrom(new DatEvent().setSoftwareEvent(evd, 11));
        copy.setDtoCompletion(evd, ep, 2, DatDtoStatus.SUCCESS, 2);
        assertEquals(0, copy.softwareEventValue());
    }

    @Test
    void connectionEventKeepsPrivateDataAndNeverNull() {
        DatEvent event = new DatEvent();
        event.setConnectionEvent(DatEventType.CONNECTION_EVENT_ESTABLISHED, evd, ep, new byte[] {1, 2});
        assertEquals(2, event.privateData().length);
        event.setConnectionEvent(DatEventType.CONNECTION_EVENT_DISCONNECTED, evd, ep, null);
        assertEquals(0, event.privateData().length);
        assertSame(ep, event.ep());
    }

    @Test
    void copyFromCopiesEverything() {
        DatEvent a = new DatEvent().setDtoCompletion(evd, ep, 9, DatDtoStatus.FLUSHED, 0).nmore(5);
        DatEvent b = new DatEvent().copyFrom(a);
        assertSame(DatEventType.DTO_COMPLETION, b.type());
        assertSame(evd, b.evd());
        assertEquals(9, b.userCookie());
        assertSame(DatDtoStatus.FLUSHED, b.dtoStatus());
        assertEquals(5, b.nmore());
        assertEquals(a.toString(), b.toString());
    }
}
