import { describe, expect, it } from 'vitest';
import { readRoot, readXml, writeXml } from '../../../src/processors/braintree/xml.js';

describe('braintree XML', () => {
  it('reads typed values, nil, arrays and records the way the SDKs do', () => {
    const text = `<?xml version="1.0" encoding="UTF-8"?>
      <disputes type="collection">
        <page-size type="integer">50</page-size>
        <dispute>
          <id>0123</id>
          <kind-of nil="true"/>
          <ok type="boolean">true</ok>
          <received-date type="date">2026-02-15</received-date>
          <evidence type="array"/>
          <status-history type="array"><status-history><status>open</status></status-history></status-history>
          <comments>a &amp; b &lt; c &#233;</comments>
        </dispute>
        <dispute><id>2</id></dispute>
      </disputes>`;
    expect(readXml(text)).toEqual({
      root: 'disputes',
      value: {
        'page-size': 50,
        dispute: [
          {
            id: '0123',
            'kind-of': null,
            ok: true,
            'received-date': '2026-02-15',
            evidence: [],
            'status-history': [{ status: 'open' }],
            comments: 'a & b < c é',
          },
          { id: '2' },
        ],
      },
    });
  });

  it('refuses what is not well-formed, a DOCTYPE, a bad integer, and another root than asked for', () => {
    expect(() => readXml('<a><b></a>')).toThrow('not well-formed XML');
    expect(() => readXml('<!DOCTYPE a [<!ENTITY e "x">]><a>&e;</a>')).toThrow('not well-formed XML');
    expect(() => readXml('<a type="integer">1.5</a>')).toThrow('"1.5" is not an integer');
    expect(() => readRoot('dispute')('<evidence><id>1</id></evidence>')).toThrow(
      'root is <evidence>, not <dispute>',
    );
  });

  it('writes dashed names, integers and arrays of items, escaped, without characters XML cannot carry', () => {
    expect(
      writeXml('search', {
        'effective-date': { min: '2026-03-01' },
        status: ['open', 'won'],
        page: 2,
        comments: 'Tom & "Jerry" <3\u0007\n',
      }),
    ).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><search><effective-date><min>2026-03-01</min></effective-date>' +
        '<status type="array"><item>open</item><item>won</item></status><page type="integer">2</page>' +
        '<comments>Tom &amp; &quot;Jerry&quot; &lt;3\n</comments></search>',
    );
  });

  it('reads back what it writes', () => {
    const text = writeXml('evidence', { comments: 'line one\nline <two>', 'document-upload-id': 'abc' });
    expect(readXml(text)).toEqual({
      root: 'evidence',
      value: { comments: 'line one\nline <two>', 'document-upload-id': 'abc' },
    });
  });
});
