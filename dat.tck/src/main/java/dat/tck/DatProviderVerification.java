// SPDX-License-Identifier: Apache-2.0
package dat.tck;

import dat.tck.rules.AttributeHonestyRules;
import dat.tck.rules.CampaignRules;
import dat.tck.rules.CnoRules;
import dat.tck.rules.CrossNodeRules;
import dat.tck.rules.EpConnectionRules;
import dat.tck.rules.EpPostRdmaWriteRules;
import dat.tck.rules.EpPostSendRules;
import dat.tck.rules.EpRecvQueryRules;
import dat.tck.rules.EvdRules;
import dat.tck.rules.IaPzLmrRules;
import dat.tck.rules.PostCallRules;
import dat.tck.rules.RmrRules;
import dat.tck.rules.SrqCreateRules;
import dat.tck.rules.SrqLifecycleRules;
import dat.tck.rules.SrqPostRecvRules;
import dat.tck.rules.SrqResizeRules;
import org.junit.jupiter.api.Nested;

/**
 * The whole TCK for one provider: extend it in your provider's tests and implement {@link #openIa()}, as the
 * example provider ({@code examples/provider-template}, compiled and run by jDAT's build) does:
 *
 * {@snippet class="com.example.dat.internal.ExampleTckTest" region="verification"}
 *
 * <p>Each nested class holds the rules of one DAT call (or object life cycle); each test is named
 * {@code required_<call>_<rule>}, {@code optional_<call>_<rule>} or {@code untested_<call>_<rule>} and carries
 * a {@link DatRule}. Run it like any JUnit Jupiter test class; set the configuration parameter
 * {@value TckContext#STRICT} to fail, rather than skip, required rules the provider cannot run.
 *
 * <p>{@link CampaignRules} runs the random campaign for {@value TckContext#CAMPAIGN_SECONDS} seconds (default
 * 10): seeded random call sequences checked against a model of DAT; a failure names the seed that replays it.
 *
 * <p>The cross-node rules ({@link CrossNodeRules}) run only when the parameter {@value TckContext#PEER} names a
 * peer ({@code dat tck-peer}) on another node; the run then ends by telling that peer "bye".
 */
@SuppressWarnings("InvalidSnippet") // the snippet above is external (class=, region=): it has no body by design
public abstract class DatProviderVerification implements TckEnvironment {

    /** For subclasses. */
    protected DatProviderVerification() {
    }

    @Nested
    class SrqPostRecv extends SrqPostRecvRules {
        SrqPostRecv() {
            super(DatProviderVerification.this);
        }
    }

    @Nested
    class EpPostSend extends EpPostSendRules {
        EpPostSend() {
            super(DatProviderVerification.this);
        }
    }

    @Nested
    class PostCalls extends PostCallRules {
        PostCalls() {
            super(DatProviderVerification.this);
        }
    }

    @Nested
    class SrqResize extends SrqResizeRules {
        SrqResize() {
            super(DatProviderVerification.this);
        }
    }

    @Nested
    class SrqCreate extends SrqCreateRules {
        SrqCreate() {
            super(DatProviderVerification.this);
        }
    }

    @Nested
    class EpRecvQuery extends EpRecvQueryRules {
        EpRecvQuery() {
            super(DatProviderVerification.this);
        }
    }

    @Nested
    class EpPostRdmaWrite extends EpPostRdmaWriteRules {
        EpPostRdmaWrite() {
            super(DatProviderVerification.this);
        }
    }

    @Nested
    class IaPzLmr extends IaPzLmrRules {
        IaPzLmr() {
            super(DatProviderVerification.this);
        }
    }

    @Nested
    class Evd extends EvdRules {
        Evd() {
            super(DatProviderVerification.this);
        }
    }

    @Nested
    class Cno extends CnoRules {
        Cno() {
            super(DatProviderVerification.this);
        }
    }

    @Nested
    class EpConnection extends EpConnectionRules {
        EpConnection() {
            super(DatProviderVerification.this);
        }
    }

    @Nested
    class Rmr extends RmrRules {
        Rmr() {
            super(DatProviderVerification.this);
        }
    }

    @Nested
    class SrqLifecycle extends SrqLifecycleRules {
        SrqLifecycle() {
            super(DatProviderVerification.this);
        }
    }

    @Nested
    class AttributeHonesty extends AttributeHonestyRules {
        AttributeHonesty() {
            super(DatProviderVerification.this);
        }
    }

    @Nested
    class CrossNode extends CrossNodeRules {
        CrossNode() {
            super(DatProviderVerification.this);
        }
    }

    @Nested
    class RandomCampaign extends CampaignRules {
        RandomCampaign() {
            super(DatProviderVerification.this);
        }
    }
}
