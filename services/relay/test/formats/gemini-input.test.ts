import { geminiToOpenAi, OpenAiToGeminiStream, openAiToGemini } from '../../src/formats/gemini-input';

describe('Gemini requests as OpenAI chat', () => {
  it('maps the system instruction, turns, images, function calls and their answers with matching ids', () => {
    const body = {
      systemInstruction: { parts: [{ text: 'Be useful.' }] },
      contents: [
        { role: 'user', parts: [{ text: 'Weather in Paris?' }, { inlineData: { mimeType: 'image/png', data: 'AAAA' } }] },
        { role: 'model', parts: [{ text: 'Checking.' }, { functionCall: { name: 'weather', args: { city: 'Paris' } } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'weather', response: { temp: 21 } } }] },
      ],
      tools: [
        { functionDeclarations: [{ name: 'weather', description: 'Weather', parameters: { type: 'OBJECT', properties: { city: { type: 'STRING' } } } }] },
      ],
      toolConfig: { functionCallingConfig: { mode: 'ANY' } },
      generationConfig: { maxOutputTokens: 64, temperature: 0.2, topP: 0.9, stopSequences: ['END'], candidateCount: 2, responseMimeType: 'application/json' },
    };
    expect(geminiToOpenAi(body, 'gpt-4o', true)).toEqual({
      model: 'gpt-4o',
      stream: true,
      messages: [
        { role: 'system', content: 'Be useful.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Weather in Paris?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
          ],
        },
        {
          role: 'assistant',
          content: 'Checking.',
          tool_calls: [{ id: 'call_weather_0', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_weather_0', content: '{"temp":21}' },
      ],
      max_tokens: 64,
      temperature: 0.2,
      top_p: 0.9,
      n: 2,
      stop: ['END'],
      response_format: { type: 'json_object' },
      tools: [
        { type: 'function', function: { name: 'weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
      ],
      tool_choice: 'required',
    });
  });
});

describe('OpenAI answers as Gemini', () => {
  it('turns a completion into candidates with text, function calls, finish reason and usage', () => {
    const completion = {
      id: 'chatcmpl-1',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Sunny.',
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }],
          },
          finish_reason: 'length',
        },
      ],
      usage: { prompt_tokens: 10, completion_tokens: 3, prompt_tokens_details: { cached_tokens: 4 } },
    };
    expect(openAiToGemini(completion, 'gpt-4o')).toEqual({
      candidates: [
        {
          content: { role: 'model', parts: [{ text: 'Sunny.' }, { functionCall: { name: 'weather', args: { city: 'Paris' } } }] },
          finishReason: 'MAX_TOKENS',
          index: 0,
        },
      ],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 3, totalTokenCount: 13, cachedContentTokenCount: 4 },
      modelVersion: 'gpt-4o',
      responseId: 'chatcmpl-1',
    });
  });

  it('streams text at once and sends tool calls whole with the finish reason and usage', () => {
    const stream = new OpenAiToGeminiStream('gpt-4o');
    const chunk = (delta: object, finish: string | null = null) => JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] });
    expect(stream.push(chunk({ role: 'assistant', content: 'Hi' }))).toEqual([
      { candidates: [{ content: { role: 'model', parts: [{ text: 'Hi' }] }, index: 0 }], modelVersion: 'gpt-4o' },
    ]);
    expect(stream.push(chunk({ tool_calls: [{ index: 0, id: 'c1', function: { name: 'weather', arguments: '{"ci' } }] }))).toEqual([]);
    expect(stream.push(chunk({ tool_calls: [{ index: 0, function: { arguments: 'ty":"Paris"}' } }] }, 'tool_calls'))).toEqual([]);
    expect(stream.push(JSON.stringify({ choices: [], usage: { prompt_tokens: 7, completion_tokens: 5 } }))).toEqual([]);
    // The upstream's usage is reported: the relay's own count (a tokenizer pass) is never made.
    const count = jest.fn(() => ({ prompt: 1, completion: 1 }));
    expect(stream.finish(count)).toEqual({
      candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'weather', args: { city: 'Paris' } } }] }, finishReason: 'STOP', index: 0 }],
      modelVersion: 'gpt-4o',
      usageMetadata: { promptTokenCount: 7, candidatesTokenCount: 5, totalTokenCount: 12 },
    });
    expect(count).not.toHaveBeenCalled();
    expect(new OpenAiToGeminiStream('gpt-4o').finish(count)).toMatchObject({
      usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
    });
  });
});
