/** The shared antd display components, fetched after app/antd-prefetch.ts (see there). */
import './descriptions.css';

export {
  Alert,
  App,
  Card,
  Descriptions,
  Dropdown,
  Empty,
  Modal,
  Popconfirm,
  Result,
  Skeleton,
  Spin,
  Tag,
  Typography,
} from 'antd';
