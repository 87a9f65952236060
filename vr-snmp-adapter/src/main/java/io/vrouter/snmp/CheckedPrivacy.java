package io.vrouter.snmp;

import org.snmp4j.security.AuthenticationProtocol;
import org.snmp4j.security.DecryptParams;
import org.snmp4j.security.PrivacyProtocol;
import org.snmp4j.smi.OID;
import org.snmp4j.smi.OctetString;

/**
 * A privacy protocol (AES) that tells a failed decryption from a good one. AES in CFB mode decrypts
 * anything, a wrong key (or a message encrypted with another protocol) into noise, which snmp4j
 * would then fail to parse and drop without a word. Here the plaintext must be a scopedPDU, a BER
 * SEQUENCE that fits what was decrypted; otherwise decryption fails, which USM counts in
 * usmStatsDecryptionErrors and reports to the manager (RFC 3414 §3.2 step 8).
 */
final class CheckedPrivacy implements PrivacyProtocol {
    private final PrivacyProtocol aes;

    CheckedPrivacy(PrivacyProtocol aes) {
        this.aes = aes;
    }

    @Override
    public byte[] decrypt(byte[] data, int offset, int length, byte[] key, long engineBoots, long engineTime,
                          DecryptParams params) {
        return scopedPduOrNull(aes.decrypt(data, offset, length, key, engineBoots, engineTime, params));
    }

    static byte[] scopedPduOrNull(byte[] plain) {
        if (plain == null || plain.length < 2 || plain[0] != 0x30) return null;
        int first = plain[1] & 0xff;
        long length;
        int header;
        if (first < 0x80) {
            length = first;
            header = 2;
        } else {
            int octets = first & 0x7f;
            if (octets < 1 || octets > 4 || plain.length < 2 + octets) return null;
            length = 0;
            for (int i = 0; i < octets; i++) length = (length << 8) | (plain[2 + i] & 0xff);
            header = 2 + octets;
        }
        return header + length <= plain.length ? plain : null;
    }

    @Override
    public byte[] encrypt(byte[] data, int offset, int length, byte[] key, long engineBoots, long engineTime,
                          DecryptParams params) {
        return aes.encrypt(data, offset, length, key, engineBoots, engineTime, params);
    }

    @Override
    public OID getID() {
        return aes.getID();
    }

    @Override
    public boolean isSupported() {
        return aes.isSupported();
    }

    @Override
    public int getEncryptedLength(int length) {
        return aes.getEncryptedLength(length);
    }

    @Override
    public int getMinKeyLength() {
        return aes.getMinKeyLength();
    }

    @Override
    public int getMaxKeyLength() {
        return aes.getMaxKeyLength();
    }

    @Override
    public int getDecryptParamsLength() {
        return aes.getDecryptParamsLength();
    }

    @Override
    public byte[] extendShortKey(byte[] key, OctetString password, byte[] engineId, AuthenticationProtocol auth) {
        return aes.extendShortKey(key, password, engineId, auth);
    }
}
