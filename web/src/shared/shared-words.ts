// The words of the shared components (copy buttons, full amounts, the preview banner, the outage
// notice) in every language of the pages, looked up by the page's i18next language: the two pages'
// catalogs use different placeholder syntaxes (ICU, i18next), so these few live here, placeholder-free.

export interface SharedWords {
  copy: string;
  copied: string;
  copyFailed: string;
  /** Screen-reader name of a copy button, before the thing's own name ("Copy address"). */
  copyWhat: string;
  showAll: string;
  showShort: string;
  previewTitle: string;
  previewBody: string;
  /** For operators, who do care which API keys this deployment issues. */
  previewOperator: string;
  outageTitle: string;
  outageBody: string;
  retry: string;
  couldNotLoad: string;
  loading: string;
}

const en: SharedWords = {
  copy: 'Copy',
  copied: 'Copied',
  copyFailed: 'Copy failed: select the text',
  copyWhat: 'Copy',
  showAll: 'Show every digit',
  showShort: 'Show short',
  previewTitle: 'Preview',
  previewBody: 'This is a test version: rewards here are not real and are not paid out.',
  previewOperator: 'test environment: mrk_test_ keys, no live rewards.',
  outageTitle: 'The service cannot be reached right now.',
  outageBody: 'Your missions and rewards are safe. Try again in a moment.',
  retry: 'Try again',
  couldNotLoad: 'Could not load this part.',
  loading: 'Loading…',
};

export const SHARED_WORDS: Record<'en' | 'ko' | 'ja' | 'zh-TW' | 'th', SharedWords> = {
  en,
  ko: {
    copy: '복사',
    copied: '복사됨',
    copyFailed: '복사하지 못했습니다. 텍스트를 선택해 주세요',
    copyWhat: '복사:',
    showAll: '모든 자릿수 보기',
    showShort: '짧게 보기',
    previewTitle: '미리 보기',
    previewBody: '테스트 버전입니다. 이곳의 보상은 실제 보상이 아니며 지급되지 않습니다.',
    previewOperator: '테스트 환경: mrk_test_ 키, 실제 보상 없음.',
    outageTitle: '지금은 서비스에 연결할 수 없습니다.',
    outageBody: '미션과 보상은 안전하게 보관되어 있습니다. 잠시 후 다시 시도해 주세요.',
    retry: '다시 시도',
    couldNotLoad: '이 부분을 불러오지 못했습니다.',
    loading: '불러오는 중…',
  },
  ja: {
    copy: 'コピー',
    copied: 'コピーしました',
    copyFailed: 'コピーできませんでした。テキストを選択してください',
    copyWhat: 'コピー:',
    showAll: 'すべての桁を表示',
    showShort: '短く表示',
    previewTitle: 'プレビュー',
    previewBody: 'これはテスト版です。ここでの報酬は本物ではなく、支払われません。',
    previewOperator: 'テスト環境: mrk_test_ キー、実際の報酬なし。',
    outageTitle: '現在サービスに接続できません。',
    outageBody: 'ミッションと報酬は失われていません。しばらくしてからもう一度お試しください。',
    retry: '再試行',
    couldNotLoad: 'この部分を読み込めませんでした。',
    loading: '読み込み中…',
  },
  'zh-TW': {
    copy: '複製',
    copied: '已複製',
    copyFailed: '無法複製，請選取文字',
    copyWhat: '複製：',
    showAll: '顯示所有位數',
    showShort: '簡短顯示',
    previewTitle: '預覽',
    previewBody: '這是測試版本：這裡的獎勵不是真的，也不會發放。',
    previewOperator: '測試環境：mrk_test_ 金鑰，無實際獎勵。',
    outageTitle: '目前無法連線到服務。',
    outageBody: '您的任務和獎勵都安全無虞，請稍後再試。',
    retry: '重試',
    couldNotLoad: '無法載入這個部分。',
    loading: '載入中…',
  },
  th: {
    copy: 'คัดลอก',
    copied: 'คัดลอกแล้ว',
    copyFailed: 'คัดลอกไม่สำเร็จ โปรดเลือกข้อความเอง',
    copyWhat: 'คัดลอก',
    showAll: 'แสดงทุกหลัก',
    showShort: 'แสดงแบบย่อ',
    previewTitle: 'ตัวอย่าง',
    previewBody: 'นี่คือเวอร์ชันทดสอบ รางวัลในหน้านี้ไม่ใช่ของจริงและจะไม่มีการจ่าย',
    previewOperator: 'สภาพแวดล้อมทดสอบ: คีย์ mrk_test_ ไม่มีรางวัลจริง',
    outageTitle: 'ขณะนี้ไม่สามารถเชื่อมต่อบริการได้',
    outageBody: 'ภารกิจและรางวัลของคุณยังอยู่ครบ โปรดลองอีกครั้งในอีกสักครู่',
    retry: 'ลองอีกครั้ง',
    couldNotLoad: 'โหลดส่วนนี้ไม่ได้',
    loading: 'กำลังโหลด…',
  },
};

/** The words of a language tag (ko-KR -> ko, zh-Hant / zh-TW -> zh-TW), else English. */
export function sharedWordsFor(language: string | undefined): SharedWords {
  const tag = (language ?? '').toLowerCase();
  if (tag.startsWith('zh')) return SHARED_WORDS['zh-TW'];
  const primary = tag.split(/[-_]/)[0] ?? '';
  return primary in SHARED_WORDS ? SHARED_WORDS[primary as keyof typeof SHARED_WORDS] : en;
}
