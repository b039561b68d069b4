import { Children, type ReactNode } from 'react';
import { Col, Row } from 'antd';

/** Settings fields side by side: up to three per row on wide screens, two on medium, one on phones. */
export function FieldGrid({ children, columns = 3 }: { children: ReactNode; columns?: 2 | 3 }) {
  return (
    <Row gutter={16}>
      {Children.toArray(children).map((child, index) => (
        <Col key={index} xs={24} md={12} xl={columns === 3 ? 8 : 12}>
          {child}
        </Col>
      ))}
    </Row>
  );
}
