package io.vrouter.snmp;

import java.io.IOException;
import org.snmp4j.TransportStateReference;
import org.snmp4j.asn1.BERInputStream;
import org.snmp4j.asn1.BEROutputStream;
import org.snmp4j.event.CounterEvent;
import org.snmp4j.mp.CounterSupport;
import org.snmp4j.mp.SnmpConstants;
import org.snmp4j.mp.StatusInformation;
import org.snmp4j.security.SecurityLevel;
import org.snmp4j.security.SecurityModel;
import org.snmp4j.security.SecurityParameters;
import org.snmp4j.security.SecurityProtocols;
import org.snmp4j.security.SecurityStateReference;
import org.snmp4j.security.USM;
import org.snmp4j.smi.Counter32;
import org.snmp4j.smi.Integer32;
import org.snmp4j.smi.OctetString;
import org.snmp4j.smi.Variable;
import org.snmp4j.smi.VariableBinding;

/**
 * snmp4j's USM, completed by RFC 3414 §3.2 step 8: a message that does not decrypt (a wrong privacy
 * key, another privacy protocol; see {@link CheckedPrivacy}) counts in usmStatsDecryptionErrors and
 * is answered by a Report PDU naming that counter (at noAuthNoPriv, since the key is what failed), as
 * unknown users and wrong digests already are. snmp4j drops such messages without a word.
 */
final class ReportingUsm extends USM {
    private final CounterSupport counters;
    private long decryptionErrors;

    ReportingUsm(SecurityProtocols protocols, OctetString engineId, int boots, CounterSupport counters) {
        super(protocols, engineId, boots, counters);
        this.counters = counters;
    }

    @Override
    public int processIncomingMsg(int messageProcessingModel, int maxMessageSize, SecurityParameters securityParameters,
                                  SecurityModel securityModel, int securityLevel, BERInputStream wholeMsg,
                                  TransportStateReference tmStateReference, OctetString securityEngineID,
                                  OctetString securityName, BEROutputStream scopedPDU,
                                  Integer32 maxSizeResponseScopedPDU, SecurityStateReference securityStateReference,
                                  StatusInformation statusInfo) throws IOException {
        int status = super.processIncomingMsg(messageProcessingModel, maxMessageSize, securityParameters, securityModel,
                securityLevel, wholeMsg, tmStateReference, securityEngineID, securityName, scopedPDU,
                maxSizeResponseScopedPDU, securityStateReference, statusInfo);
        if (status == SnmpConstants.SNMPv3_USM_DECRYPTION_ERROR && statusInfo != null
                && statusInfo.getErrorIndication() == null) {
            CounterEvent counted = new CounterEvent(this, SnmpConstants.usmStatsDecryptionErrors);
            counters.fireIncrementCounter(counted);
            Variable value = counted.getCurrentValue();
            synchronized (this) {
                decryptionErrors++;
                if (value == null) value = new Counter32(decryptionErrors);
            }
            statusInfo.setErrorIndication(new VariableBinding(SnmpConstants.usmStatsDecryptionErrors, value));
            statusInfo.setSecurityLevel(new Integer32(SecurityLevel.NOAUTH_NOPRIV));
        }
        return status;
    }
}
